/**
 * The gateway's token rules, for a fake gateway: the password grant starts a sign-in (a family); the refresh
 * grant spends its refresh token once, and presenting a spent one again revokes the whole sign-in (400,
 * 11308), as the real server does (server/src/domain/token.ts) with a reuse grace of 0: stricter than its
 * default (30 s), so that a client that ever presents a spent token fails here; a revocation ends the sign-in; protected
 * calls want a live access token of a live sign-in. Every answer carries an `X-Request-Id`.
 */
import { errorBody, json, type Recorded } from './fake-server.js';

export function tokenRules(options: { now: () => number; lifetime?: number }) {
  const lifetime = options.lifetime ?? 3600;
  let issued = 0;
  let requestIds = 0;
  const revoked = new Set<number>();
  const refreshTokens = new Map<string, { family: number; spent: boolean }>();
  const accessTokens = new Map<string, { family: number; expiresAt: number }>();
  const counts = { password: 0, refresh: 0, reuse: 0, revoke: 0 };
  const headers = () => ({ 'x-request-id': `req-${++requestIds}` });

  const issue = (family: number) => {
    issued++;
    const expiresAt = Math.floor(options.now() / 1000) + lifetime;
    accessTokens.set(`access-${issued}`, { family, expiresAt });
    refreshTokens.set(`refresh-${issued}`, { family, spent: false });
    return json(
      200,
      {
        access_token: `access-${issued}`,
        token_type: 'bearer',
        expires_in: expiresAt,
        refresh_token: `refresh-${issued}`,
      },
      headers(),
    );
  };

  return {
    counts,
    headers,
    /** The answer of the token and revocation endpoints; undefined for other paths. */
    answer(r: Recorded): Response | undefined {
      if (r.url.pathname === '/v1/oauth2/revoke') {
        counts.revoke++;
        const token = refreshTokens.get(new URLSearchParams(r.body).get('token') ?? '');
        if (token) revoked.add(token.family);
        return json(200, {}, headers());
      }
      if (r.url.pathname !== '/v1/oauth2/token') return undefined;
      const form = new URLSearchParams(r.body);
      if (form.get('grant_type') === 'password') {
        counts.password++;
        return issue(issued + 1);
      }
      counts.refresh++;
      const token = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!token || revoked.has(token.family)) return json(400, errorBody(11308, 'Invalid refresh token'), headers());
      if (token.spent) {
        counts.reuse++;
        revoked.add(token.family);
        return json(400, errorBody(11308, 'Invalid refresh token'), headers());
      }
      token.spent = true;
      return issue(token.family);
    },
    /** Whether a request carries a live access token of a live sign-in. */
    authorized(r: Recorded): boolean {
      const token = accessTokens.get(r.headers.get('authorization')?.replace(/^Bearer /, '') ?? '');
      return token !== undefined && !revoked.has(token.family) && token.expiresAt * 1000 > options.now();
    },
  };
}
