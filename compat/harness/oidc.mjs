// A real OpenID Connect provider for the auth suite: panva's oidc-provider
// (the certified Node implementation) on a free 127.0.0.1 port, with one
// confidential client, and a cookie-keeping HTTP walker that plays the
// browser through the authorization round trip.
//
// The provider starts listening at once (its issuer goes into the stack's
// GOTRUE_EXTERNAL_GOOGLE_ISSUER) but is configured by configure() once the
// stack's callback URL is known; authsvc discovers the provider lazily, on
// the first sign-in.
//
// There is no login page: devInteractions are off and the provider's
// interaction URL (/interaction/:uid) is answered here, by code: it signs in
// `state.nextUser` and grants the requested OIDC scopes, through the
// provider's own interactionDetails / Grant / interactionFinished API.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

/**
 * @param {{clientId: string, clientSecret: string}} client
 */
export async function startOIDCProvider({ clientId, clientSecret }) {
  const state = {
    /** The account the next interaction signs in: {sub, email, email_verified, name, picture}. */
    nextUser: null,
    /** Every authorization request that reached an interaction (the provider's parsed params). */
    authorizations: [],
    /** Every token endpoint success: {params (the request), idToken (the issued JWT)}. */
    tokens: [],
  };
  const accounts = new Map();
  let provider;
  let handler;

  const srv = createServer((req, res) => {
    if (!handler) {
      res.writeHead(503, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'provider not configured yet' }));
    }
    const path = new URL(req.url, issuer).pathname;
    if (req.method === 'GET' && /^\/interaction\/[^/]+$/.test(path)) {
      interact(req, res).catch((err) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err?.stack ?? err));
      });
      return;
    }
    handler(req, res);
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const issuer = `http://127.0.0.1:${srv.address().port}`;

  // Login + consent in one step, for the user the test chose.
  async function interact(req, res) {
    const details = await provider.interactionDetails(req, res);
    const { params, prompt } = details;
    state.authorizations.push({ ...params });
    let accountId = details.session?.accountId;
    if (prompt.name === 'login' || !accountId) {
      const user = state.nextUser;
      if (!user?.sub) throw new Error('oidc: state.nextUser is not set');
      accounts.set(user.sub, { ...user });
      accountId = user.sub;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId, clientId: params.client_id });
    grant.addOIDCScope(params.scope);
    if (params.claims) {
      const requested = JSON.parse(params.claims);
      grant.addOIDCClaims([...Object.keys(requested.id_token ?? {}), ...Object.keys(requested.userinfo ?? {})]);
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  /** Registers the client with its redirect URIs and starts answering. */
  function configure({ redirectUris }) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    provider = new Provider(issuer, {
      clients: [{
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // authsvc sends the secret in the form body, as Google accepts.
        token_endpoint_auth_method: 'client_secret_post',
      }],
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'k-' + randomBytes(4).toString('hex'), alg: 'RS256', use: 'sig' }] },
      cookies: { keys: [randomBytes(32).toString('hex')] },
      ttl: { Interaction: 600, Session: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name', 'picture'],
      },
      // Like Google: the profile claims are in the id_token of a code flow
      // too (they stay on userinfo as well).
      conformIdTokenClaims: false,
      features: {
        devInteractions: { enabled: false },
        userinfo: { enabled: true },
      },
      async findAccount(_ctx, sub) {
        const user = accounts.get(sub);
        if (!user) return undefined;
        return { accountId: sub, claims: async () => ({ ...user, sub }) };
      },
      // Anything the provider refuses shows as JSON, for an assertion's message.
      async renderError(ctx, out) {
        ctx.type = 'json';
        ctx.body = out;
      },
    });
    provider.on('grant.success', (ctx) => {
      state.tokens.push({ params: { ...ctx.oidc.params }, idToken: ctx.body?.id_token });
    });
    handler = provider.callback();
  }

  return {
    issuer,
    state,
    configure,
    get provider() { return provider; },
    stop: () => new Promise((r) => { srv.closeAllConnections?.(); srv.close(r); }),
  };
}

// A browser's cookie jar, as much as the round trip needs: cookies by
// host and path (the provider scopes its interaction cookies to
// /interaction/:uid and /auth/:uid), expired ones dropped.
export class CookieJar {
  #cookies = [];

  store(url, res) {
    const u = new URL(url);
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const c = { name: pair.slice(0, eq), value: pair.slice(eq + 1), host: u.host, path: '/', expires: Infinity };
      for (const a of attrs) {
        const [k, v = ''] = a.split('=');
        const key = k.toLowerCase();
        if (key === 'path') c.path = v || '/';
        else if (key === 'expires') c.expires = Date.parse(v);
        else if (key === 'max-age') c.expires = Date.now() + Number(v) * 1000;
      }
      this.#cookies = this.#cookies.filter((o) => !(o.name === c.name && o.host === c.host && o.path === c.path));
      if (c.expires > Date.now()) this.#cookies.push(c);
    }
  }

  header(url) {
    const u = new URL(url);
    const now = Date.now();
    const within = (path) => u.pathname === path || u.pathname.startsWith(path.endsWith('/') ? path : path + '/');
    return this.#cookies
      .filter((c) => c.host === u.host && c.expires > now && within(c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

/**
 * Follows redirects from url, keeping cookies, until a Location starts with
 * `until`; returns that Location. Every hop must be a redirect.
 */
export async function followRedirects(url, until, { jar = new CookieJar(), maxHops = 10 } = {}) {
  let next = url;
  for (let i = 0; i < maxHops; i++) {
    const cookie = jar.header(next);
    const res = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    jar.store(next, res);
    if (![302, 303].includes(res.status)) {
      throw new Error(`${next}: ${res.status} ${await res.text()}`);
    }
    await res.arrayBuffer();
    next = new URL(res.headers.get('location'), next).toString();
    if (next.startsWith(until)) return next;
  }
  throw new Error(`did not reach ${until} in ${maxHops} redirects (last: ${next})`);
}
