// The TypeScript SDK client (@modelcontextprotocol/sdk, pinned in package.json) signs in to
// coolify-mcp's OAuth authorization server and calls a tool. The "browser" is this script: it
// posts the /authorize form with the user's Coolify token and takes the code from the redirect.
// Usage: node oauth-sign-in.mjs MCP_URL COOLIFY_TOKEN
// Prints one JSON line: {registered, tools, text}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const [mcpUrl, coolifyToken] = process.argv.slice(2);
const redirectUrl = 'http://127.0.0.1:9/callback';

class Provider {
  constructor() {
    this.info = undefined;
    this.saved = undefined;
    this.verifier = undefined;
    this.code = undefined;
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: 'sdk-sign-in-test',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url) {
    // What a person does in the browser: open the form, paste their Coolify token, allow.
    const page = await fetch(url);
    if (!page.ok || !(await page.text()).includes('coolify_token')) {
      throw new Error(`no sign-in form at ${url} (${page.status})`);
    }
    const form = new URLSearchParams(url.searchParams);
    form.set('coolify_token', coolifyToken);
    const posted = await fetch(new URL(url.pathname, url), {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    const location = posted.headers.get('location');
    if (!location) throw new Error(`the form did not redirect (${posted.status})`);
    this.code = new URL(location).searchParams.get('code');
  }
}

const provider = new Provider();
const connect = async () => {
  const client = new Client({ name: 'sdk-sign-in-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  try {
    await client.connect(transport);
    return client;
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || !provider.code) throw e;
    await transport.finishAuth(provider.code);
    const again = new Client({ name: 'sdk-sign-in-test', version: '1.0.0' });
    await again.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }),
    );
    return again;
  }
};

const client = await connect();
const tools = (await client.listTools()).tools.length;
const result = await client.callTool({ name: 'get_application', arguments: { uuid: 'app-api' } });
process.stdout.write(
  JSON.stringify({
    registered: Boolean(provider.info?.client_id),
    tools,
    text: result.content[0].text,
  }) + '\n',
);
await client.close();
