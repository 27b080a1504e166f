/** POST /v1/oauth2/token: the password and refresh_token grants. */
import type { HandlerMap } from '@gateway/generated';
import { type Context, nowSeconds } from '../context.js';
import { issueForPassword, issueForRefreshToken, revokeToken } from '../domain/token.js';
import { ApiError } from '../errors.js';

type Params = Record<string, string | undefined>;

function required(params: Params, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') {
    throw new ApiError('missing_parameter', `Missing parameter ${name}`, { details: { parameter: name } });
  }
  return value;
}

/** A token pair for the request's grant (counted by grant type), or the refusal. */
async function grant(params: Params, context: Context) {
  const grantType = required(params, 'grant_type');
  const scope = required(params, 'scope');
  const clientId = required(params, 'client_id');
  const now = nowSeconds(context);
  if (grantType === 'password') {
    const username = required(params, 'username');
    const password = required(params, 'password');
    // A new sign-in from this client's address, counted before it costs anything (rows, a signature check).
    await context.addressLimits.admitSignIn(context.client);
    const pair = await issueForPassword(context.store, context.tokens, { scope, clientId, username, password }, now);
    context.metrics.tokenGranted('password');
    return pair;
  }
  if (grantType !== 'refresh_token') throw new ApiError('unsupported_grant_type');
  const refreshToken = required(params, 'refresh_token');
  const { pair, replayed } = await issueForRefreshToken(
    context.store,
    context.tokens,
    { scope, clientId, refreshToken },
    now,
  );
  context.metrics.tokenGranted(replayed ? 'refresh_token_replayed' : 'refresh_token');
  return pair;
}

export const tokenHandlers: Pick<HandlerMap<Context>, 'createToken' | 'revokeToken'> = {
  async createToken({ body, query }, context) {
    // Deployed clients send the parameters in the query string with an empty body; a body wins when present
    // (one without any parameter arrives here as no body). Refusals are counted by the error handler (the
    // spec marks this operation `x-refusals-counted`).
    return { status: 200, body: await grant((body ?? query) as Params, context) };
  },
  async revokeToken({ body }, context) {
    // An empty body (or `{}`) arrives as no body: the token is missing.
    const token = required({ token: body?.token }, 'token');
    await revokeToken(
      context.store,
      context.tokens,
      { token, hint: body?.token_type_hint, clientId: body?.client_id },
      nowSeconds(context),
    );
    return { status: 200, body: {} };
  },
};
