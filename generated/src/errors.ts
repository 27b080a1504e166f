// DO NOT EDIT. Generated from spec/ by `npm run generate` (scripts/generate.mjs).
// Change the spec and regenerate instead.

/** The error catalogue of the spec (components.schemas.ErrorCode), keyed by each code's stable name. */
export const errorCatalogue = {
  invalid_access_token: { code: 10000, status: 401, message: "The access token is missing, malformed, expired or invalid." },
  operation_disabled: { code: 10101, status: 403, message: "The currency's deposit or withdrawal is inactive on that platform; no address is given." },
  withdrawal_address_limit: { code: 10102, status: 403, message: "The account holds as many withdrawal (proxy) addresses as it may (`details.limit`); no new one is given.\nThe addresses it has are still answered.\n" },
  missing_parameter: { code: 10200, status: 400, message: "A required parameter is missing. `details.parameter` names it." },
  invalid_parameter: { code: 10201, status: 400, message: "A parameter has an invalid value. `details.parameter` names it." },
  body_unreadable: { code: 10204, status: 400, message: "The request body cannot be parsed in its declared content type." },
  invalid_cursor: { code: 10206, status: 400, message: "The `after` cursor was not issued by this server for this list and filter." },
  invalid_address: { code: 10207, status: 400, message: "The destination address is not a valid address of the platform. `details.reason` says why: `format`,\n`checksum` (a bech32 or base58check checksum, or the EIP-55 checksum of a mixed-case `0x` address),\n`mixed_case` (bech32 in mixed case) or `network` (an address of another network).\n" },
  route_not_found: { code: 10400, status: 404, message: "No operation exists at this path." },
  currency_not_found: { code: 10401, status: 404, message: "The currency is unknown, or has no terms for this direction." },
  platform_not_found: { code: 10402, status: 404, message: "The platform is unknown." },
  currency_not_on_platform: { code: 10403, status: 404, message: "The currency is not offered on this platform for this direction." },
  movement_not_found: { code: 10404, status: 404, message: "No movement of the signed-in account has this id." },
  staking_yield_not_found: { code: 10405, status: 404, message: "The token is unknown or has no staking yield." },
  internal_error: { code: 10500, status: 500, message: "An unexpected error. Details are logged by the server, never sent." },
  method_not_allowed: { code: 10700, status: 405, message: "The path exists but not with this HTTP method." },
  unsupported_media_type: { code: 10800, status: 415, message: "The request body's content type is not one the operation accepts." },
  not_acceptable: { code: 10900, status: 406, message: "The `Accept` header admits none of the representations the operation serves (JSON, or the text of `/metrics` and `/v1/events`)." },
  payload_too_large: { code: 11000, status: 413, message: "The request body is larger than the server accepts (16 KiB)." },
  rate_limited: { code: 11100, status: 429, message: "Too many requests; retry after the number of seconds in `Retry-After`." },
  too_many_event_streams: { code: 11101, status: 429, message: "The account already holds as many event streams open on this instance as it may (`details.limit`)." },
  headers_too_large: { code: 11400, status: 431, message: "The request line or headers are larger than the server reads (16 KiB)." },
  request_timeout: { code: 11500, status: 408, message: "The request did not arrive in time (its headers within 10 s of its first byte, all of it within 30 s)." },
  service_unavailable: { code: 11200, status: 503, message: "A dependency (the database) is unavailable; retry later." },
  event_streams_at_capacity: { code: 11201, status: 503, message: "This instance holds as many event streams as it can; retry after `Retry-After` seconds." },
  overloaded: { code: 11202, status: 503, message: "The instance is overloaded (its event loop lags, its heap is nearly full, or answers wait unread by their clients past its bound) and sheds requests; retry after `Retry-After` seconds." },
  storage_full: { code: 11203, status: 503, message: "The database's storage is full, so nothing was written; reads go on. Retry after `Retry-After` seconds." },
  unsupported_grant_type: { code: 11300, status: 400, message: "`grant_type` is neither `password` nor `refresh_token`." },
  invalid_scope: { code: 11301, status: 400, message: "`scope` is not `general`." },
  invalid_client: { code: 11302, status: 400, message: "`client_id` is not one this server accepts." },
  invalid_username: { code: 11303, status: 400, message: "`username` is neither a valid ledger public key nor a valid `0x` address." },
  invalid_password_format: { code: 11304, status: 400, message: "`password` is not `<expiry>:<signature>` with a decimal expiry and a well-formed signature." },
  expiry_passed: { code: 11305, status: 400, message: "The signed expiry is not in the future." },
  expiry_too_far: { code: 11306, status: 400, message: "The signed expiry is more than one week (plus 300 seconds of clock skew) ahead." },
  invalid_signature: { code: 11307, status: 400, message: "The signature does not verify for this username, chain id, client id and expiry." },
  invalid_refresh_token: { code: 11308, status: 400, message: "The refresh token is unknown, expired, already used or revoked." },
  password_signed_out: { code: 11309, status: 400, message: "A sign-in of this account expiring at or after this password's expiry was revoked: sign a new password with a later expiry." },
} as const;

export type ErrorName = keyof typeof errorCatalogue;
export type ErrorCode = (typeof errorCatalogue)[ErrorName]['code'];
