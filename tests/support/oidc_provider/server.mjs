// An OpenID provider for the sign-on tests: node's certified `oidc-provider` (pinned in
// package-lock.json), configured here and nothing more. Discovery, JWKS, authorization code
// with PKCE, ID tokens, userinfo and RP-initiated logout are the library's.
//
//   node server.mjs PORT
//
// Environment: OIDC_TEST_CLIENT ({client_id, client_secret, redirect_uris,
// post_logout_redirect_uris}) and OIDC_TEST_ACCOUNTS ({login: {sub, name, email,
// email_verified, groups}}), both JSON. People sign in on a small form by login name alone,
// or cancel (access_denied); consent is implied for the one client.
//
// Test-only: POST /test/tamper?mode=nonce|signature|issuer|audience|expired makes the token
// endpoint's ID tokens wrong in that one way (re-signed with the provider's own key, except
// for `signature`); an empty mode turns it off.
import { generateKeyPair, exportJWK, SignJWT, decodeJwt } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.argv[2]);
const issuer = `http://127.0.0.1:${port}`;
const client = JSON.parse(process.env.OIDC_TEST_CLIENT);
const accounts = JSON.parse(process.env.OIDC_TEST_ACCOUNTS);
const KID = 'test-key';

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const signingJwk = { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' };
const strangerKey = (await generateKeyPair('RS256')).privateKey;

const bySub = Object.fromEntries(Object.entries(accounts).map(([login, a]) => [a.sub, { login, ...a }]));

const provider = new Provider(issuer, {
  clients: [{
    ...client,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  jwks: { keys: [signingJwk] },
  cookies: { keys: ['test-cookie-key'] },
  claims: {
    openid: ['sub'],
    // Groups with the profile, as a Keycloak "Group Membership" mapper adds them.
    profile: ['name', 'preferred_username', 'groups'],
    email: ['email', 'email_verified'],
  },
  features: { devInteractions: { enabled: false } },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(ctx, sub) {
    const account = bySub[sub];
    if (!account) return undefined;
    return {
      accountId: sub,
      async claims() {
        const { login, name, email, email_verified, groups } = account;
        return { sub, preferred_username: login, name, email, email_verified, groups };
      },
    };
  },
  // Consent is implied: the playground is this provider's one (first-party) client.
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email profile');
    await grant.save();
    return grant;
  },
});

let tamper = '';

async function formBody(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

function loginPage(uid, error = '') {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test provider: sign in</title></head>
<body><main><h1>Test provider</h1>${error ? `<p role="alert">${error}</p>` : ''}
<form method="post" action="/interaction/${uid}/login">
<label for="login">Login name</label> <input id="login" name="login" autofocus>
<button type="submit">Sign in</button></form>
<form method="post" action="/interaction/${uid}/abort"><button type="submit">Cancel</button></form>
</main></body></html>`;
}

async function wrongIdToken(idToken) {
  const claims = decodeJwt(idToken);
  const now = Math.floor(Date.now() / 1000);
  const changes = {
    nonce: { nonce: 'another-nonce' },
    issuer: { iss: 'http://127.0.0.1:1/another-issuer' },
    audience: { aud: 'another-client', azp: claims.aud },
    expired: { iat: now - 7200, exp: now - 3600 },
    signature: {},
  }[tamper];
  const key = tamper === 'signature' ? strangerKey : privateKey;
  return new SignJWT({ ...claims, ...changes })
    .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
    .sign(key);
}

provider.use(async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.path === '/test/tamper') {
    tamper = ctx.query.mode || '';
    ctx.body = { tamper };
    return;
  }
  const interaction = ctx.path.match(/^\/interaction\/([^/]+)(?:\/(login|abort))?$/);
  if (interaction) {
    const [, uid, action] = interaction;
    await provider.interactionDetails(ctx.req, ctx.res);
    if (ctx.method === 'GET' && !action) {
      ctx.type = 'html';
      ctx.body = loginPage(uid);
      return;
    }
    let result;
    if (action === 'abort') {
      result = { error: 'access_denied', error_description: 'The person cancelled the sign-in.' };
    } else {
      const login = (await formBody(ctx.req)).get('login') || '';
      if (!accounts[login]) {
        ctx.type = 'html';
        ctx.body = loginPage(uid, 'No such person here.');
        return;
      }
      result = { login: { accountId: accounts[login].sub } };
    }
    ctx.status = 303;
    ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false }));
    return;
  }
  await next();
  if (tamper && ctx.path === '/token' && ctx.body?.id_token) {
    ctx.body = { ...ctx.body, id_token: await wrongIdToken(ctx.body.id_token) };
  }
});

provider.listen(port, '127.0.0.1');
