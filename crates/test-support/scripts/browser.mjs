// A stand-in for a person's browser in sign-in tests: `BROWSER="node …/browser.mjs"`.
// It follows the authorization URL's redirects (at most 10 hops) and GETs the last one, which
// is the sign-in redirect to coyote's loopback listener — what a browser does when the
// authorization server approves at once.
//
// COYOTE_TEST_BROWSER=forge-state replaces `state` on the hop to `/callback` (a forged
// redirect). COYOTE_TEST_BROWSER_LOG=FILE appends every URL it was asked to open.
// It prints nothing (coyote gives it no stdout); the exit code says whether the last page was OK.
import fs from 'node:fs';

const url = process.argv[2];
if (!url) process.exit(2);
if (process.env.COYOTE_TEST_BROWSER_LOG) {
  fs.appendFileSync(process.env.COYOTE_TEST_BROWSER_LOG, url + '\n');
}
const forge = process.env.COYOTE_TEST_BROWSER === 'forge-state';

let current = url;
for (let hop = 0; hop < 10; hop++) {
  const target = new URL(current);
  if (forge && target.pathname === '/callback' && target.searchParams.has('state')) {
    target.searchParams.set('state', 'forged-state');
  }
  const response = await fetch(target, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status >= 300 && response.status < 400 && location) {
    current = new URL(location, target).toString();
    continue;
  }
  process.exit(response.ok ? 0 : 1);
}
process.exit(1);
