// A stand-in for a person's browser signing in to coolify-mcp (`BROWSER="node …/browser-form.mjs"`):
// open the authorization URL, fill the sign-in form's token field with $COOLIFY_TEST_TOKEN, submit
// it, and follow the redirects back to the client's loopback callback. Prints nothing; the exit
// code says whether the last page was OK.
const start = process.argv[2];
const token = process.env.COOLIFY_TEST_TOKEN;
if (!start || !token) process.exit(2);

const unescape = (s) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

async function follow(url, init) {
  let current = url;
  let options = init;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(current, { ...options, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      current = new URL(location, current).toString();
      options = undefined;
      continue;
    }
    return { response, url: current };
  }
  throw new Error('too many redirects');
}

const { response, url } = await follow(start);
const html = await response.text();
const form = /<form method="post" action="([^"]*)">/.exec(html);
if (!form) process.exit(response.ok ? 0 : 1);
const body = new URLSearchParams();
for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
  body.append(unescape(m[1]), unescape(m[2]));
}
body.append('coolify_token', token);
const done = await follow(new URL(unescape(form[1]), url).toString(), { method: 'POST', body });
process.exit(done.response.ok ? 0 : 1);
