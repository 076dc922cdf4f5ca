// A real OAuth 2.1 / OpenID Connect authorization server for the OAuth
// suite (oauth.test.mjs): node-oidc-provider, certified by the OpenID
// Foundation, with dynamic client registration, PKCE, resource indicators
// (RFC 8707), JWT and opaque access tokens, introspection and revocation.
// It runs on the Node 22 of node_modules (as the conformance suite does)
// and prints {"issuer": ...} on stdout once it listens.
//
// Its issuer ends in "/", as Auth0's do. Sign-in and consent are automated:
// the authorization request's login_hint names the account, and every
// scope asked for is granted. Test-only client metadata picks the shape of
// the tokens a client gets: token_format "opaque", and scp_format "string"
// or "list" to put the scopes in "scp" (as Entra ID and Okta do) instead
// of "scope".
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

// The toolset scopes an identity provider is set up with (docs/oauth.md).
const toolsetScopes = ['tenants', 'products', 'inventory', 'members', 'roles', 'audit'].map((t) => `vitrine:toolset:${t}`);

// The accounts: their sub, and the email they claim. "mallory" claims
// Ana's address without having verified it.
const accounts = {
  ana: { email: 'ana@technova.example', email_verified: true },
  carla: { email: 'carla@technova.example', email_verified: true },
  mallory: { email: 'ana@technova.example', email_verified: false },
};

// ES256 signs the access tokens; RS256, the default of registered clients,
// their ID tokens.
const es256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
const rs256 = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

const server = createServer();
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const issuer = `http://127.0.0.1:${server.address().port}/`;

const provider = new Provider(issuer, {
  clients: [
    // The resource server's own client, for token introspection.
    { client_id: 'vitrine', client_secret: 'vitrine-introspection-secret', grant_types: [], redirect_uris: [], response_types: [] },
    // Vitrine signing people in with this server as their company's
    // provider (sso.test.mjs), when it says where it listens.
    ...(process.env.SSO_REDIRECT_URI ? [{ client_id: 'vitrine-sso', client_secret: 'vitrine-sso-secret',
      redirect_uris: [process.env.SSO_REDIRECT_URI], grant_types: ['authorization_code'], response_types: ['code'] }] : []),
  ],
  // The email claims go in the ID token, where a relying party reads them.
  conformIdTokenClaims: false,
  jwks: { keys: [{ ...rs256, kid: 'test-rs256', alg: 'RS256', use: 'sig' }, { ...es256, kid: 'test-es256', alg: 'ES256', use: 'sig' }] },
  cookies: { keys: ['oauth-suite-cookie-key'] },
  scopes: ['openid', 'offline_access', 'vitrine:read', 'vitrine:write', ...toolsetScopes],
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  pkce: { required: () => true },
  extraClientMetadata: { properties: ['token_format', 'scp_format'] },
  async findAccount(ctx, sub) {
    const account = accounts[sub];
    return account && { accountId: sub, claims: async () => ({ sub, ...account }) };
  },
  // Access tokens name their user by email, as Keycloak's email mapper
  // and an Auth0 Action put it there.
  async extraTokenClaims(ctx, token) {
    const account = accounts[token.accountId];
    return account && { email: account.email, email_verified: account.email_verified };
  },
  formats: {
    customizers: {
      async jwt(ctx, token, jwt) {
        const format = ctx.oidc.client?.scp_format;
        if (format) {
          const scopes = jwt.payload.scope.split(' ');
          delete jwt.payload.scope;
          jwt.payload.scp = format === 'list' ? scopes : scopes.join(' ');
        }
        return jwt;
      },
    },
  },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (ctx, client, oneOf) => oneOf?.[0],
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource, client) => ({
        scope: ['vitrine:read', 'vitrine:write', ...toolsetScopes].join(' '),
        audience: resource,
        accessTokenTTL: 3600,
        accessTokenFormat: client.token_format === 'opaque' ? 'opaque' : 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
});
provider.on('server_error', (ctx, err) => console.error('authorization server error:', err));

// The automated sign-in and consent.
provider.use(async (ctx, next) => {
  const m = ctx.path.match(/^\/interaction\/([\w-]+)$/);
  if (!m) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const { prompt, params, session } = details;
  let result;
  if (prompt.name === 'login') {
    if (!accounts[params.login_hint]) {
      result = { error: 'access_denied', error_description: 'unknown account' };
    } else {
      result = { login: { accountId: params.login_hint } };
    }
  } else {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
    if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
});

server.on('request', provider.callback());
console.log(JSON.stringify({ issuer }));
