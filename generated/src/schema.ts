// DO NOT EDIT. Generated from spec/ by `npm run generate` (scripts/generate.mjs).
// Change the spec and regenerate instead.

export interface paths {
    "/v1/oauth2/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Obtain or reissue an access token
         * @description OAuth 2.0 token endpoint with two grants.
         *
         *     **password**: initial obtaining. `username` is the user's ledger public key (or the `0x` address of an
         *     account whose keys come from an Ethereum-style wallet); `password` is `<expiry>:<signature>`, where the
         *     signature is over `[255, 255, 255, 1]` followed by `<chain_id>:<client_id>:<expiry>` (see the
         *     `password` parameter). `expiry` must be in the future and at most one week ahead; 300 seconds of clock
         *     skew are tolerated on the one-week bound because clients sign exactly now + 604800 and send a moment
         *     later.
         *
         *     **refresh_token**: reissue. The refresh token is exchanged for a new pair (an access token with the same
         *     lifetime, from now) and is spent. A sign-in has one live refresh token at any time: the one it issued
         *     last. Presented again within 30 seconds of when it was spent (the reuse grace; the operator's
         *     `REFRESH_REUSE_GRACE_SECONDS`, 0 to 300), a spent token is exchanged for another new pair of the same
         *     sign-in, and the refresh token that was live until then is spent at that moment (the branch the replay
         *     supersedes; a sign-in remembers the last 16 tokens spent within the grace, and one spent before those is
         *     a reuse as below): the browser tabs of a site share one session through a storage whose writes reach the
         *     other tabs late, so a tab may present the token another tab has just spent, and two tabs may refresh at
         *     once; the tab that refreshed last holds the live pair, which the tabs read from their storage next. A
         *     spent token presented past the grace, whether spent by its own exchange or superseded by a replay,
         *     revokes every refresh and access token issued from the same sign-in, those of the grace included (reuse
         *     detection; access tokens within 5 seconds on every instance, see the `bearer` scheme). So a stolen token
         *     replayed within the grace does not fork the sign-in: the owner's next refresh past the grace, or the
         *     thief's, revokes it. Access tokens already issued work until they expire or the sign-in is revoked. A
         *     revoked sign-in stays revoked: its tokens, spent or not, get 11308.
         *     `POST /v1/oauth2/revoke` revokes a sign-in on request.
         *     A refresh token works only with the `client_id` it was issued to; presented with another one it is
         *     refused and stays as it was. A refresh that fails (a server error) leaves the token unspent.
         *
         *     **Signing out ends the password too.** A password is a bearer secret that stays valid until its
         *     expiry (and deployed clients send it in query strings, which logs keep). Once a sign-in is revoked
         *     (`POST /v1/oauth2/revoke`, or reuse detection above), the password grant refuses its password and every
         *     other password of the same account signed for an expiry at or before that sign-in's own expiry, on
         *     every instance: 400 with code 11309 (OAuth's `invalid_grant`). Signing a new password with a later
         *     expiry signs in again; the account's other sign-ins and other accounts are not affected. A client that
         *     signs `now + 604800` signs a later expiry as soon as one second has passed since it signed the password
         *     of the sign-in that was revoked.
         *
         *     The parameters are form-encoded in the body (`application/x-www-form-urlencoded`). Deployed clients
         *     send them in the query string instead, with an empty body (possibly labelled `application/json`);
         *     that is accepted, and deprecated (the query parameters say so): a query string ends up in logs, and
         *     these carry credentials. When the body is empty, or carries no parameter at all (`{}` in JSON, nothing
         *     but separators in a form), the parameters are read from the query string; otherwise the body is a
         *     complete request and wins. Every request that sends a token parameter in the query string, read or not,
         *     is counted in `gateway_deprecated_parameter_requests_total`. A JSON object body is accepted too.
         *
         *     The response's `expires_in` is the absolute Unix time at which the access token expires.
         *
         *     Token requests are limited per client address (an IPv6 client by its /64): a number a minute (60 by
         *     default), and password grants (new sign-ins, whatever the accounts) a number an hour (300 by default);
         *     past either, 429 (code 11100) with `Retry-After`.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth2/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a sign-in (log out)
         * @description Token revocation in the manner of RFC 7009. `token` is a refresh token or an access token issued by
         *     this server; the whole sign-in it belongs to (its family: every refresh token and every access token
         *     issued from one password grant and its refreshes) is revoked. Its refresh tokens are refused at once
         *     (code 11308); its access tokens are refused (401, code 10000) at once by the instance that answered
         *     and within 5 seconds by every other instance (see the `bearer` scheme). Use it to sign a device out.
         *
         *     The password that started the sign-in is ended too, on every instance: from the answer on, the
         *     password grant refuses it, and any other password of the account signed for an expiry at or before
         *     that sign-in's expiry, with code 11309 (see `createToken`). Sign in again with a password signed for a
         *     later expiry.
         *
         *     As RFC 7009 says, the answer is 200 whether or not the token was one this server issued, was already
         *     revoked or has expired: a client cannot do anything useful with such an error, and the answer tells
         *     nobody whether a token exists. `token_type_hint` (`refresh_token` or `access_token`) says where to look
         *     first; the other kind is looked at too. A `client_id`, when sent (public clients send one), must be one
         *     this server accepts; it is not compared with the token's own, since a public client's id is no secret
         *     and holding the token is the authority to revoke it.
         *
         *     The parameters are form-encoded in the body (`application/x-www-form-urlencoded`); a JSON object body
         *     is accepted too.
         */
        post: operations["revokeToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deposit/currencies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deposit terms
         * @description Currencies available for deposit, with their terms on each platform: one item per currency and
         *     platform, ordered by currency id, then platform id. Public. Paged by `limit` and `offset`;
         *     `has_next_page` is true exactly when more items exist.
         */
        get: operations["listDepositCurrencies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deposit/currencies/{currency}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the deposit terms of a currency on its default platform
         * @deprecated
         * @description Deprecated: use `getDepositCurrency` (`GET /v1/deposit/currencies/{currency}/{platform}`). Deposit terms
         *     of the currency on its default platform. Public. Answers with `Deprecation` and a `Link` to the successor.
         */
        get: operations["getDepositCurrencyOnDefaultPlatform"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deposit/currencies/{currency}/{platform}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the deposit terms of a currency on a platform
         * @description Deposit terms of one currency on one platform. Public.
         */
        get: operations["getDepositCurrency"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deposit/addresses/{currency}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the account's deposit address for a currency on its default platform
         * @deprecated
         * @description Deprecated: use `getDepositAddresses` (`GET /v1/deposit/addresses/{currency}/{platform}`). The same
         *     resource, on the currency's default platform. Requires a token. Answers with `Deprecation` and a
         *     `Link` to the successor.
         */
        get: operations["getDepositAddressesOnDefaultPlatform"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deposit/addresses/{currency}/{platform}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the account's deposit address for a currency on a platform
         * @description An address on the platform's blockchain. Transfers of the currency to it are credited to the signed-in
         *     ledger account, minus the deposit fees. The address belongs to the account: the same account and
         *     platform always get the same address, and no two accounts share one. An inactive deposit is refused
         *     (403, code 10101) rather than given an address. Requires a token.
         *
         *     On the ledger's own platform (a platform whose addresses are ledger addresses, such as `WAVES`), a
         *     deposit is a transfer on the ledger: the address is the signed-in account's own ledger address, which
         *     such a transfer credits directly. Nothing stands between, so that platform's terms carry no fees.
         */
        get: operations["getDepositAddresses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/withdraw/currencies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List withdrawal terms
         * @description Currencies available for withdrawal, with their terms on each platform: one item per currency and
         *     platform, ordered by currency id, then platform id. Public. Paged by `limit` and `offset`;
         *     `has_next_page` is true exactly when more items exist.
         */
        get: operations["listWithdrawalCurrencies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/withdraw/currencies/{currency}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the withdrawal terms of a currency on its default platform
         * @deprecated
         * @description Deprecated: use `getWithdrawalCurrency` (`GET /v1/withdraw/currencies/{currency}/{platform}`). Withdrawal terms
         *     of the currency on its default platform. Public. Answers with `Deprecation` and a `Link` to the successor.
         */
        get: operations["getWithdrawalCurrencyOnDefaultPlatform"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/withdraw/currencies/{currency}/{platform}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the withdrawal terms of a currency on a platform
         * @description Withdrawal terms of one currency on one platform. Public.
         */
        get: operations["getWithdrawalCurrency"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/withdraw/addresses/{currency}/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the proxy ledger address for a withdrawal on the currency's default platform
         * @deprecated
         * @description Deprecated: use `getWithdrawalAddresses`
         *     (`GET /v1/withdraw/addresses/{currency}/{address}/{platform}`). The same resource, on the currency's
         *     default platform. Requires a token. Answers with `Deprecation` and a `Link` to the successor.
         */
        get: operations["getWithdrawalAddressesOnDefaultPlatform"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/withdraw/addresses/{currency}/{address}/{platform}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the proxy ledger address for a withdrawal to an external address on a platform
         * @description A ledger address (the proxy). Transfers of the currency to it are paid to `address` on the platform's
         *     blockchain, minus the withdrawal fees. `address` is checked for the platform (400, code 10207, with
         *     `details.reason`, when it is not valid there). The proxy address is stable for the account, currency,
         *     destination and platform. An inactive withdrawal is refused (403, code 10101). Requires a token.
         *
         *     **One address, one proxy.** An address written in several ways is one destination: on an EVM platform
         *     `0x` and 40 hex digits in any single case, or mixed case only when it is the EIP-55 checksum (another
         *     mixed case is a typo: 400, reason `checksum`); on Bitcoin bech32/bech32m (in lowercase or in uppercase,
         *     never mixed: reason `mixed_case`) of the platform's network, or base58check. Every spelling of a
         *     destination gets the same proxy.
         *
         *     **Limits.** An account holds at most a number of proxies set by the operator (100 by default), across
         *     currencies and platforms: a new one past it is refused (403, code 10102, `details.limit`). It creates at
         *     most a number of new proxies a minute (10 by default), and one client address, whatever the accounts it
         *     signs in with, a number of new proxies an hour (60 by default; an IPv6 client by its /64): one more is
         *     refused (429, code 11100, with `Retry-After`). A proxy the account already has is always answered, never
         *     limited.
         *
         *     On the ledger's own platform (such as `WAVES`), `address` is a ledger address of this network and a
         *     withdrawal is a plain transfer on the ledger: the answer's `proxy_addresses` holds `address` itself, to
         *     transfer to directly. No proxy is allocated and that platform's terms carry no fees.
         */
        get: operations["getWithdrawalAddresses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/movements": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's movements
         * @description The signed-in account's deposits and withdrawals, newest `created_at` first (ties broken by id,
         *     descending). Cursor pages: pass the previous `page_info.last_cursor` as `after`. A movement's
         *     `created_at` (and the account it belongs to) never changes once stored, so a walk sees every
         *     movement that exists throughout it exactly once, whatever else changes. Requires a token.
         */
        get: operations["listMovements"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/movements/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one of the account's movements
         * @description One movement of the signed-in account. A movement of another account is answered exactly like a
         *     missing one (404, code 10404). Requires a token.
         */
        get: operations["getMovement"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream the account's events
         * @description A [Server-Sent Events](https://html.spec.whatwg.org/multipage/server-sent-events.html) stream
         *     (`text/event-stream`) of the signed-in account's events; another account's events are never sent.
         *     Requires a token.
         *
         *     **Event kinds.** `event: movement`: one of the account's movements was created or changed (by a feed
         *     import or any other write, through any instance); its `data` is the movement, the same JSON as
         *     `GET /v1/movements/{id}` (schema `MovementEvent`). `event: reset`: see reconnecting (schema
         *     `ResetEvent`). Clients ignore kinds they do not know: more may be added.
         *
         *     **Ids.** Every event has an `id`, a decimal integer that counts the account's own events: its first
         *     event is `1` and each next one is one more, without gaps. Other accounts' events never move it, so an
         *     id, a position and a `reset` tell nothing of anyone else's activity. The stream starts with an `id:`
         *     line and no data: the position it starts from, the account's last id (`0` before its first event; a
         *     browser's `EventSource` takes it as its last event id without firing an event), so that a reconnect
         *     never misses what happened meanwhile. Events are sent in id order. (An account that had events or a
         *     sign-in when the server began counting each account's events on its own, an upgrade, goes on from the
         *     server-wide count of that moment instead of from 1.)
         *
         *     **Reconnecting.** A client that reconnects with `Last-Event-ID: <id>` (the header `EventSource` sends;
         *     or the `last_event_id` query parameter for clients that cannot set headers) receives every event of
         *     the account after that id that it missed, in order, then live events. Events are kept for 24 hours
         *     (the retention window). When the events after the id are not all kept, one `reset` event comes first
         *     (reason `expired`; its `id` is the one before the oldest kept event, which follow): the id is older
         *     than the window, or it was handed out before the upgrade above (all but the last position of that
         *     time). An id beyond the account's last id (one it was never given: another account's, or made up) is
         *     answered with one `reset` event (reason `unknown`) whose `id` is the account's last id. After a
         *     `reset` the client should re-read `GET /v1/movements`. A malformed id is a 400 (code 10201). Without an
         *     id the stream starts with what happens from now on.
         *
         *     **Keeping the connection.** A comment line (`: heartbeat`) is sent every 15 seconds, so that proxies
         *     do not close an idle connection; the answer carries `Cache-Control: no-store` and
         *     `X-Accel-Buffering: no` (nginx does not buffer it). The stream asks for `retry: 2000` (milliseconds).
         *
         *     **End.** The stream ends when the access token expires; the client refreshes its token and reconnects
         *     with the new one and its last event id. It ends when its sign-in is revoked (`POST /v1/oauth2/revoke`,
         *     or a refresh token used twice): at once on the instance that revoked it, within the revocation bound
         *     (5 seconds) on the others, and no event is sent after that; reconnecting with the same access token is
         *     then refused (401), and so is a refresh. It also ends when the instance shuts down; reconnecting is
         *     always safe.
         *
         *     **Limits.** An account may hold a few streams open on one instance (5 by default, set by the
         *     operator): one more is refused with 429 (code 11101, `details.limit`) until one of its streams
         *     closes. An instance holds as many streams in all as its memory allows: past that, 503 (code 11201)
         *     with `Retry-After`; another instance may have room.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platforms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List platforms
         * @description Platforms (external blockchains) supported for deposit and withdrawal, ordered by id, with the
         *     currencies each supports. Cursor pages. Public: the interface leaves it open, and deployed clients
         *     read it without a token (one sends a token anyway; it is ignored).
         */
        get: operations["listPlatforms"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platforms/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a platform
         * @description One platform with the currencies it supports. Public (see `listPlatforms`).
         */
        get: operations["getPlatform"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the trades of a ledger address for a currency pair
         * @description Exchange trades (buys and sells) of the address for the pair, by timestamp in the order of `sort`
         *     (default `desc`), ties broken by id in the same order. Filter by `timestamp__gte` and
         *     `timestamp__lt`. Cursor pages; a cursor is bound to the address, pair, filter and order it was
         *     issued for. A trade's `timestamp` never changes once stored, so a walk sees every trade that
         *     exists throughout it exactly once. Public: the interface leaves it open, and trades on the ledger
         *     are public.
         */
        get: operations["listTrades"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/apy/staking/{currency_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the staking yield of a token
         * @description The staking annual percentage yield of the token. 404 when the token is unknown or has no staking
         *     yield. Public: the interface leaves it open, and deployed clients read it without a token.
         */
        get: operations["getStakingYield"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description Whether the process is up and serving HTTP. It does not touch the database: use it to restart a stuck
         *     process, never to take an instance out of rotation (that is readiness). Public.
         */
        get: operations["getLiveness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness
         * @description Whether this instance can serve every operation: 200 when its database answers, 503 (code 11200) when
         *     it does not. Deployments and orchestrators wait for it before moving on to the next instance. To route
         *     traffic, use `getServingState` (`/health/serving`): during a database outage every instance is unready
         *     at once, yet each still serves the catalogue from memory. Public.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/serving": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Serving state
         * @description What this instance can serve, for load balancers to route by: 200 while it can answer requests, which
         *     includes a database outage during which it serves the catalogue (platforms, currencies and their terms,
         *     staking yields) from memory (`status: degraded`; operations that need the database answer 503 with
         *     `Retry-After` meanwhile). 503 (code 11200) when it can serve nothing: the database does not answer
         *     and no catalogue was ever read; and 503 (code 11202, with `Retry-After`) while it is overloaded and
         *     refuses requests (its heap nearly full, answers waiting unread past their bound, or its event loop
         *     lagging): route elsewhere until it has caught up. An instance cut off from a database that the others
         *     reach shows `degraded` here and `gateway_database_up 0` in the metrics: alert on those. A full disk
         *     under the database shows `storage: full` (`degraded`, 200: reads go on, writes answer 503 with code
         *     11203) and `gateway_storage_full 1`. Public.
         */
        get: operations["getServingState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Metrics in the Prometheus text format: requests by operationId and status with latency histograms,
         *     token grants and refusals by reason, requests that sent a deprecated parameter by operationId (the
         *     credentials that deployed clients send in the token endpoint's query string), database pool state, and
         *     the process's own. Public on the API's
         *     port by default; with `METRICS_PORT` set it is served only on that port (on `METRICS_HOST`, loopback by
         *     default), and the API's port answers 404 here, so that a public proxy never shows it.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * ErrorCode
         * @description The error catalogue. A code is `prefix × 10000 + kind × 100 + detail` (prefix 1 for this gateway).
         *     `enum` lists the codes; `x-codes` gives each, in the same order, its stable name (`name`), the HTTP
         *     status it comes with (`status`) and its meaning (`description`).
         *     Kinds 0 to 8 are those of the real service's family; kinds 9 to 15 are added by this gateway.
         * @example 10000
         * @enum {integer}
         */
        ErrorCode: 10000 | 10101 | 10102 | 10200 | 10201 | 10204 | 10206 | 10207 | 10400 | 10401 | 10402 | 10403 | 10404 | 10405 | 10500 | 10700 | 10800 | 10900 | 11000 | 11100 | 11101 | 11400 | 11500 | 11200 | 11201 | 11202 | 11203 | 11300 | 11301 | 11302 | 11303 | 11304 | 11305 | 11306 | 11307 | 11308 | 11309;
        /**
         * ErrorBody
         * @description The body of every error response.
         */
        ErrorBody: {
            errors: components["schemas"]["ErrorItem"][];
        };
        /**
         * ErrorItem
         * @example {
         *       "code": 10201,
         *       "message": "querystring/limit must be <= 100",
         *       "details": {
         *         "parameter": "limit"
         *       }
         *     }
         */
        ErrorItem: {
            code: components["schemas"]["ErrorCode"];
            /**
             * @description A human-readable explanation. Not stable; branch on `code`.
             * @example Access token is expired or invalid
             */
            message: string;
            /**
             * @description Optional context, all values strings (for example the parameter concerned).
             * @example {
             *       "parameter": "limit"
             *     }
             */
            details?: {
                [key: string]: string;
            };
        };
        /**
         * TokenResponse
         * @description The token response, to both grants.
         * @example {
         *       "access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjJhOWYiLCJ0eXAiOiJKV1QifQ.eyJhIjoiM1A5S1IzM1F5WHdmVFh2OGtLdE5HWll0Z0trM1JYU1VrMzYiLCJuYiI6IlciLCJleHAiOjE3OTQ0MDI4MDB9.c2lnbmF0dXJl",
         *       "token_type": "bearer",
         *       "expires_in": 1893456000,
         *       "refresh_token": "rt_9Hc2rTQv1m3P0WkA7yZbL5xNqE8sJfUd4GgVoKiB6Cw"
         *     }
         */
        TokenResponse: {
            /**
             * @description Bearer token for the protected operations (a JWT; treat it as opaque). At most 4096 characters, the
             *     length `POST /v1/oauth2/revoke` accepts.
             * @example eyJhbGciOiJFZERTQSIsImtpZCI6IjJhOWYiLCJ0eXAiOiJKV1QifQ.eyJhIjoiM1A5S1IzM1F5WHdmVFh2OGtLdE5HWll0Z0trM1JYU1VrMzYiLCJuYiI6IlciLCJleHAiOjE3OTQ0MDI4MDB9.c2lnbmF0dXJl
             */
            access_token: string;
            /**
             * @description Always `bearer`.
             * @enum {string}
             */
            token_type: "bearer";
            /**
             * @description Expiry of the access token as an absolute Unix time in seconds (not a duration). For the password
             *     grant it is the expiry the user signed; a refresh issues a token with the same lifetime, from now.
             * @example 1893456000
             */
            expires_in: number;
            /**
             * @description Opaque; exchanged once for a new token pair. Valid 30 days unless configured otherwise. At most 256
             *     characters, the length the `refresh_token` parameter accepts.
             * @example rt_9Hc2rTQv1m3P0WkA7yZbL5xNqE8sJfUd4GgVoKiB6Cw
             */
            refresh_token: string;
        };
        /**
         * PasswordGrantRequest
         * @description Initial obtaining of a token by signing (grant_type `password`).
         * @example {
         *       "grant_type": "password",
         *       "scope": "general",
         *       "username": "4KxUVD9NtyRJjU3BCvPgJSttoJX7cb3DMdDTNucLN121",
         *       "password": "1893456000:2SdV1pLJrN49TkTVxqXmkJ7fbi5J1wGHiUQV2jVUhiQ9WK7yEA9nsWd5uJmceTJEjtF3koveZkaZ7qEf6ovSE8QW",
         *       "client_id": "waves.exchange"
         *     }
         */
        PasswordGrantRequest: {
            /** @constant */
            grant_type: "password";
            scope: components["schemas"]["Scope"];
            username: components["schemas"]["Username"];
            password: components["schemas"]["Password"];
            client_id: components["schemas"]["ClientId"];
        };
        /**
         * RefreshTokenGrantRequest
         * @description Reissue of a token pair from a refresh token (grant_type `refresh_token`).
         * @example {
         *       "grant_type": "refresh_token",
         *       "scope": "general",
         *       "client_id": "waves.exchange",
         *       "refresh_token": "rt_9Hc2rTQv1m3P0WkA7yZbL5xNqE8sJfUd4GgVoKiB6Cw"
         *     }
         */
        RefreshTokenGrantRequest: {
            /** @constant */
            grant_type: "refresh_token";
            scope: components["schemas"]["Scope"];
            client_id: components["schemas"]["ClientId"];
            refresh_token: components["schemas"]["RefreshToken"];
        };
        /**
         * TokenRequest
         * @description A token request of either grant, told apart by the `const` of `grant_type`; or a body that carries no
         *     parameter at all (`{}`), which counts as no body: the parameters are then read from the query string.
         * @example {
         *       "grant_type": "refresh_token",
         *       "scope": "general",
         *       "client_id": "waves.exchange",
         *       "refresh_token": "rt_9Hc2rTQv1m3P0WkA7yZbL5xNqE8sJfUd4GgVoKiB6Cw"
         *     }
         */
        TokenRequest: components["schemas"]["PasswordGrantRequest"] | components["schemas"]["RefreshTokenGrantRequest"] | components["schemas"]["NoParameters"];
        /**
         * RevocationRequest
         * @description A token to revoke (RFC 7009), with an optional hint of its kind.
         * @example {
         *       "token": "rt_9Hc2rTQv1m3P0WkA7yZbL5xNqE8sJfUd4GgVoKiB6Cw",
         *       "token_type_hint": "refresh_token"
         *     }
         */
        RevocationRequest: {
            /** @description A refresh token or an access token issued by this server. */
            token: string;
            /**
             * @description Where to look first; the other kind is looked at too.
             * @enum {string}
             */
            token_type_hint?: "refresh_token" | "access_token";
            client_id?: components["schemas"]["ClientId"];
        };
        /**
         * RevocationResponse
         * @description Empty; the status says it all (RFC 7009).
         * @example {}
         */
        RevocationResponse: Record<string, never>;
        /**
         * CurrencyId
         * @description A currency of the exchange, named as the ledger names it: a ticker (`USDT`, up to 32 characters) or the
         *     ledger's asset id (32 bytes in base58: 43 or 44 characters, for example
         *     `8LQW8f7P5d5PZM7GtZEBgaqRPGSzS3DfPuiXrURJ4AJS`). Case-sensitive. The pattern admits any 43 or 44 base58
         *     characters (it cannot tell which decode to exactly 32 bytes); an id that names no asset matches nothing.
         * @example USDT
         */
        CurrencyId: string;
        /**
         * PlatformId
         * @description Identifier of a platform (an external blockchain). Case-sensitive.
         * @example ETH
         */
        PlatformId: string;
        /**
         * LedgerAddress
         * @description An address on the exchange ledger: 26 bytes in base58 (35 characters), beginning with `3P` on the main
         *     network (`W`) and `3M`/`3N` on the test network (`T`).
         * @example 3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36
         */
        LedgerAddress: string;
        /**
         * Cursor
         * @description An opaque page cursor issued by the server (base64url, at most 256 characters).
         * @example eyJrIjpbIjIwMjEtMDgtMDNUMTE6MjU6MDAuMTU2WiJdfQ
         */
        Cursor: string;
        /**
         * OffsetPageInfo
         * @description Page information of the currency lists (offset pages).
         * @example {
         *       "has_next_page": false
         *     }
         */
        OffsetPageInfo: {
            /** @description True exactly when more items exist after this page. */
            has_next_page: boolean;
        };
        /**
         * CursorPageInfo
         * @description Page information of the cursor-paged lists (movements, platforms, trades). A page holds at most `limit`
         *     items and at most `x-page-bytes` bytes of JSON (262,144: 256 KiB, the whole body): it ends before the
         *     item that would take it past that, with `has_next_page` true and a `last_cursor` that continues after
         *     its last item, so that nothing is skipped. A page holds at least one item whenever one follows the
         *     cursor (the bounds of each item keep it far smaller). Real pages stay well below: a page of 100
         *     movements or 1,000 trades is some tens of KiB.
         * @example {
         *       "has_next_page": true,
         *       "last_cursor": "eyJrIjpbIkVUSCJdfQ"
         *     }
         */
        CursorPageInfo: {
            /** @description Whether a next page exists. */
            has_next_page: boolean;
            /**
             * @description Pass as `after` to get the next page; `null` on the last page.
             * @example eyJrIjpbIkVUSCJdfQ
             */
            last_cursor: string | null;
        };
        /**
         * AllowedAmount
         * @description Bounds of the amount of one operation, in whole currency units.
         * @example {
         *       "min": 10,
         *       "max": 1000000
         *     }
         */
        AllowedAmount: {
            /**
             * @description Minimum amount of the operation.
             * @example 10
             */
            min: number;
            /**
             * @description Maximum amount of the operation.
             * @example 1000000
             */
            max: number;
        };
        /**
         * Fees
         * @description Fees of the operation. The amount received is `(amount − flat) × (1 − rate)`: by the ledger account for a
         *     deposit, by the external address for a withdrawal.
         * @example {
         *       "flat": 5,
         *       "rate": 0.001
         *     }
         */
        Fees: {
            /**
             * @description Fixed fee deducted from the amount, in whole currency units.
             * @example 5
             */
            flat: number;
            /**
             * @description Fee rate, a fraction of the amount after the flat fee.
             * @example 0.001
             */
            rate: number;
        };
        /**
         * CurrencyStatus
         * @description `active`: the operation (deposit or withdrawal) is enabled. `inactive`: it is disabled.
         * @example active
         * @enum {string}
         */
        CurrencyStatus: "active" | "inactive";
        /**
         * DepositCurrency
         * @description Deposit terms of a currency on a platform.
         * @example {
         *       "type": "deposit_currency",
         *       "id": "USDT",
         *       "platform_id": "ETH",
         *       "chain_asset_id": "34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ",
         *       "platform_asset_id": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
         *       "decimals": 6,
         *       "status": "active",
         *       "allowed_amount": {
         *         "min": 10,
         *         "max": 1000000
         *       },
         *       "fees": {
         *         "flat": 0,
         *         "rate": 0
         *       }
         *     }
         */
        DepositCurrency: {
            /** @constant */
            type: "deposit_currency";
        } & components["schemas"]["CurrencyTerms"];
        /**
         * WithdrawalCurrency
         * @description Withdrawal terms of a currency on a platform.
         * @example {
         *       "type": "withdrawal_currency",
         *       "id": "USDT",
         *       "platform_id": "ETH",
         *       "chain_asset_id": "34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ",
         *       "platform_asset_id": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
         *       "decimals": 6,
         *       "status": "active",
         *       "allowed_amount": {
         *         "min": 20,
         *         "max": 500000
         *       },
         *       "fees": {
         *         "flat": 5,
         *         "rate": 0.001
         *       }
         *     }
         */
        WithdrawalCurrency: {
            /** @constant */
            type: "withdrawal_currency";
        } & components["schemas"]["CurrencyTerms"];
        /**
         * DepositCurrencyList
         * @description A page of deposit terms, ordered by currency id, then platform id.
         */
        DepositCurrencyList: {
            /** @constant */
            type: "list";
            page_info: components["schemas"]["OffsetPageInfo"];
            /** @description At most `limit` terms (100 at most). */
            items: components["schemas"]["DepositCurrency"][];
        };
        /**
         * WithdrawalCurrencyList
         * @description A page of withdrawal terms, ordered by currency id, then platform id.
         */
        WithdrawalCurrencyList: {
            /** @constant */
            type: "list";
            page_info: components["schemas"]["OffsetPageInfo"];
            /** @description At most `limit` terms (100 at most). */
            items: components["schemas"]["WithdrawalCurrency"][];
        };
        /**
         * DepositAddresses
         * @description Where to deposit: transfers of the currency to an address in `deposit_addresses` on the currency's
         *     platform are credited to the signed-in ledger account, minus fees. The address is the account's own,
         *     stable for the account and platform. (The interface does not show this body; it is the real service's.)
         * @example {
         *       "type": "deposit_addresses",
         *       "currency": {
         *         "type": "deposit_currency",
         *         "id": "USDT",
         *         "platform_id": "ETH",
         *         "chain_asset_id": "34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ",
         *         "platform_asset_id": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
         *         "decimals": 6,
         *         "status": "active",
         *         "allowed_amount": {
         *           "min": 10,
         *           "max": 1000000
         *         },
         *         "fees": {
         *           "flat": 0,
         *           "rate": 0
         *         }
         *       },
         *       "deposit_addresses": [
         *         "0x3f2b1c25A5f23b193560B97988ee98cBDb480730"
         *       ]
         *     }
         */
        DepositAddresses: {
            /** @constant */
            type: "deposit_addresses";
            currency: components["schemas"]["DepositCurrency"];
            /**
             * @description Addresses on the platform's blockchain (one; clients use the first). On the ledger's own platform,
             *     the signed-in account's ledger address.
             */
            deposit_addresses: string[];
        };
        /**
         * WithdrawalAddresses
         * @description Where to withdraw: transfers of the currency to the ledger address in `proxy_addresses` are paid to the
         *     requested external address, minus fees. The proxy address is stable for the account, currency,
         *     destination and platform. (The interface does not show this body; it is the real service's.)
         * @example {
         *       "type": "withdrawal_addresses",
         *       "currency": {
         *         "type": "withdrawal_currency",
         *         "id": "USDT",
         *         "platform_id": "ETH",
         *         "chain_asset_id": "34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ",
         *         "platform_asset_id": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
         *         "decimals": 6,
         *         "status": "active",
         *         "allowed_amount": {
         *           "min": 20,
         *           "max": 500000
         *         },
         *         "fees": {
         *           "flat": 5,
         *           "rate": 0.001
         *         }
         *       },
         *       "proxy_addresses": [
         *         "3PQ4nHEVPtvd4TDP77H7BSdDddyxLs9gQ67"
         *       ]
         *     }
         */
        WithdrawalAddresses: {
            /** @constant */
            type: "withdrawal_addresses";
            currency: components["schemas"]["WithdrawalCurrency"];
            /**
             * @description Ledger addresses to transfer to (one; clients use the first). On the ledger's own platform, the
             *     destination itself.
             */
            proxy_addresses: components["schemas"]["LedgerAddress"][];
        };
        /**
         * MovementStatus
         * @description State of a movement. The interface does not define transitions between states, and neither does this
         *     gateway: it reports the state its feed records.
         * @example confirmed
         * @enum {string}
         */
        MovementStatus: "in_progress" | "pending_approval" | "confirmed" | "rejected";
        /**
         * MovementTransaction
         * @description A transaction that carried (part of) the movement, on one platform.
         * @example {
         *       "transaction_id": "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
         *       "platform_id": "ETH"
         *     }
         */
        MovementTransaction: {
            transaction_id: components["schemas"]["TransactionId"];
            platform_id: components["schemas"]["PlatformId"];
        };
        /**
         * Movement
         * @description A deposit or withdrawal of the signed-in account.
         * @example {
         *       "type": "gateway_movement",
         *       "id": "0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f",
         *       "direction": "deposit",
         *       "status": "confirmed",
         *       "source_platform_id": "BTC",
         *       "destination_platform_id": "WAVES",
         *       "currency_id": "BTC",
         *       "amount": 0.0128,
         *       "fee": 0.00001,
         *       "created_at": "2020-11-03T08:34:02.630Z",
         *       "updated_at": "2020-11-03T09:02:41.117Z",
         *       "recipient_address": "3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36",
         *       "transactions": [
         *         {
         *           "transaction_id": "9f1c0c4b1f7e6c7a3fa0a8a1d2e5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3",
         *           "platform_id": "BTC"
         *         },
         *         {
         *           "transaction_id": "E4dTtiN8GaiCJUY4WK8nFdCdiM5UdbX4jLKw1i3vCWWL",
         *           "platform_id": "WAVES"
         *         }
         *       ]
         *     }
         */
        Movement: {
            /** @constant */
            type: "gateway_movement";
            id: components["schemas"]["MovementId"];
            direction: components["schemas"]["MovementDirection"];
            status: components["schemas"]["MovementStatus"];
            source_platform_id: components["schemas"]["PlatformId"];
            destination_platform_id: components["schemas"]["PlatformId"];
            currency_id: components["schemas"]["CurrencyId"];
            /**
             * Format: double
             * @description Amount, in whole currency units.
             * @example 0.0128
             */
            amount: number;
            /**
             * Format: double
             * @description Fee, in whole currency units.
             * @example 0.00001
             */
            fee: number;
            /**
             * Format: date-time
             * @description UTC with milliseconds (`YYYY-MM-DDThh:mm:ss.sssZ`).
             * @example 2020-11-03T08:34:02.630Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @description UTC with milliseconds (`YYYY-MM-DDThh:mm:ss.sssZ`).
             * @example 2020-11-03T09:02:41.117Z
             */
            updated_at: string;
            recipient_address: components["schemas"]["RecipientAddress"];
            transactions: components["schemas"]["MovementTransactions"];
        };
        /**
         * MovementList
         * @description A page of movements, newest `created_at` first (ties broken by id, descending).
         */
        MovementList: {
            /** @constant */
            type: "list";
            page_info: components["schemas"]["CursorPageInfo"];
            /** @description At most `limit` movements (100 at most), within the page's byte bound. */
            items: components["schemas"]["Movement"][];
        };
        /**
         * MovementEvent
         * @description The `data` of an event of kind `movement` of `GET /v1/events`: one of the account's movements was created
         *     or changed (by a feed import or any other write). It is the movement as it was written, the same JSON as
         *     `GET /v1/movements/{id}` answered at that moment. A write that changes nothing (the same record imported
         *     again) makes no event.
         * @example {
         *       "type": "gateway_movement",
         *       "id": "0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f",
         *       "direction": "deposit",
         *       "status": "confirmed",
         *       "source_platform_id": "BTC",
         *       "destination_platform_id": "WAVES",
         *       "currency_id": "BTC",
         *       "amount": 0.0128,
         *       "fee": 0.00001,
         *       "created_at": "2020-11-03T08:34:02.630Z",
         *       "updated_at": "2020-11-03T09:02:41.117Z",
         *       "recipient_address": "3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36",
         *       "transactions": [
         *         {
         *           "transaction_id": "9f1c0c4b1f7e6c7a3fa0a8a1d2e5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3",
         *           "platform_id": "BTC"
         *         }
         *       ]
         *     }
         */
        MovementEvent: components["schemas"]["Movement"];
        /**
         * ResetEvent
         * @description The `data` of an event of kind `reset` of `GET /v1/events`: the events after the `Last-Event-ID` the
         *     client resumed from can no longer all be sent (older than the retention window, 24 hours), or that id is
         *     not one of the account's, so the client re-reads what it keeps (`GET /v1/movements`) and goes on from this
         *     event's `id`, an id of the account's own events; the events after it follow.
         * @example {
         *       "type": "reset",
         *       "reason": "expired"
         *     }
         */
        ResetEvent: {
            /** @constant */
            type: "reset";
            /**
             * @description `expired`: events after the id are no longer kept (older than the retention window, or an id of before the server counted each account's events on its own); `unknown`: beyond the account's last id, never given to this account.
             * @enum {string}
             */
            reason: "expired" | "unknown";
        };
        /**
         * EventId
         * @description The `id` of an event of `GET /v1/events`: a decimal integer that counts the account's own events (`0`
         *     before its first event).
         * @example 42
         */
        EventId: string;
        /**
         * EventStreamFrame
         * @description One frame of the `text/event-stream` of `GET /v1/events`, its fields as the client reads them (the text
         *     after `field: `). The stream starts with a position (an `id` without data: the client takes it as its
         *     last event id, and no event fires), then sends one frame an event: its kind (`event`), its `id` and its
         *     `data`, one line of JSON of the kind's schema. `retry` (the reconnection delay in milliseconds) comes
         *     with the first frame. Clients ignore kinds they do not know: more may be added.
         * @example {
         *       "id": "41",
         *       "retry": "2000"
         *     }
         * @example {
         *       "event": "reset",
         *       "id": "311",
         *       "retry": "2000",
         *       "data": "{\"type\":\"reset\",\"reason\":\"expired\"}"
         *     }
         */
        EventStreamFrame: {
            id: components["schemas"]["EventId"];
            retry?: components["schemas"]["EventStreamRetry"];
        } | {
            /** @constant */
            event: "movement";
            id: components["schemas"]["EventId"];
            retry?: components["schemas"]["EventStreamRetry"];
            /** @description One line of JSON, a `MovementEvent`. */
            data: string;
        } | {
            /** @constant */
            event: "reset";
            id: components["schemas"]["EventId"];
            retry?: components["schemas"]["EventStreamRetry"];
            /** @description One line of JSON, a `ResetEvent`. */
            data: string;
        };
        /**
         * EventStreamRetry
         * @description The reconnection delay the client should use, in milliseconds (the stream asks for 2000).
         * @example 2000
         */
        EventStreamRetry: string;
        /**
         * Platform
         * @description An external blockchain supported for deposit and withdrawal.
         * @example {
         *       "type": "platform",
         *       "id": "ETH",
         *       "name": "Ethereum",
         *       "currencies": [
         *         "ETH",
         *         "USDC",
         *         "USDT",
         *         "WAVES"
         *       ]
         *     }
         */
        Platform: {
            /** @constant */
            type: "platform";
            id: components["schemas"]["PlatformId"];
            name: components["schemas"]["PlatformName"];
            /** @description Tickers of the currencies supported on the platform, in ascending order. */
            currencies: components["schemas"]["CurrencyId"][] & components["schemas"]["ExchangeCurrencies"];
        };
        /**
         * PlatformList
         * @description A page of platforms, ordered by id.
         */
        PlatformList: {
            /** @constant */
            type: "list";
            page_info: components["schemas"]["CursorPageInfo"];
            /** @description At most `limit` platforms (100 at most). */
            items: components["schemas"]["Platform"][];
        };
        /**
         * Trade
         * @description One exchange trade of the address, seen from the address's side.
         * @example {
         *       "type": "buy",
         *       "id": "E4dTtiN8GaiCJUY4WK8nFdCdiM5UdbX4jLKw1i3vCWWL",
         *       "timestamp": "2021-08-03T11:25:00.156Z",
         *       "amount": 123.74966584,
         *       "price": 15.9173
         *     }
         */
        Trade: {
            type: components["schemas"]["TradeType"];
            id: components["schemas"]["TradeId"];
            /**
             * Format: date-time
             * @description Time of the trade, UTC with milliseconds.
             * @example 2021-08-03T11:25:00.156Z
             */
            timestamp: string;
            /**
             * @description Amount, in the amount currency.
             * @example 123.74966584
             */
            amount: number;
            /**
             * @description Price, in the price currency.
             * @example 15.9173
             */
            price: number;
        };
        /**
         * TradeList
         * @description A page of trades, by timestamp in the requested order (ties broken by id in the same order).
         */
        TradeList: {
            /** @constant */
            type: "list";
            page_info: components["schemas"]["CursorPageInfo"];
            /** @description At most `limit` trades (1000 at most), within the page's byte bound. */
            items: components["schemas"]["Trade"][];
        };
        /**
         * StakingYield
         * @description The staking annual percentage yield of a token.
         * @example {
         *       "type": "apy",
         *       "apy": 6.22
         *     }
         */
        StakingYield: {
            /** @constant */
            type: "apy";
            /**
             * @description Annual percentage yield, in percent (6.22 means 6.22 %).
             * @example 6.22
             */
            apy: number;
        };
        /**
         * Liveness
         * @description The process is alive.
         * @example {
         *       "status": "ok"
         *     }
         */
        Liveness: {
            /** @constant */
            status: "ok";
        };
        /**
         * Readiness
         * @description The instance is ready, and the state of what it depends on.
         * @example {
         *       "status": "ok",
         *       "checks": {
         *         "database": "ok",
         *         "storage": "ok"
         *       }
         *     }
         */
        Readiness: {
            /** @constant */
            status: "ok";
            checks: {
                /** @constant */
                database: "ok";
                /**
                 * @description `full` while writes are refused because the database's storage is full (503, code 11203), until
                 *     space is freed. It does not make the instance unready: reads go on, and another instance would
                 *     find the same disk.
                 * @enum {string}
                 */
                storage?: "ok" | "full";
                /**
                 * @description Whether the Redis that shares the rate limits answers (only when one is configured). It does not
                 *     make the instance unready: without it each instance counts the limits alone.
                 * @enum {string}
                 */
                redis?: "ok" | "unavailable";
            };
        };
        /**
         * ServingState
         * @description What the instance can serve. `status` is `ok` when everything it depends on answers, `degraded` when it
         *     serves with something missing (`checks` says what). `redis` is present only when REDIS_URL is set: without
         *     Redis the token endpoint's rate limit is counted by each instance alone, which does not stop serving.
         * @example {
         *       "status": "degraded",
         *       "checks": {
         *         "database": "unavailable",
         *         "catalogue": "ok",
         *         "storage": "ok"
         *       },
         *       "catalogue_age_seconds": 12
         *     }
         */
        ServingState: {
            /** @enum {string} */
            status: "ok" | "degraded";
            checks: {
                /**
                 * @description Whether the database answers.
                 * @enum {string}
                 */
                database: "ok" | "unavailable";
                /**
                 * @description Whether a catalogue is held in memory (read from the database at least once).
                 * @enum {string}
                 */
                catalogue: "ok" | "unavailable";
                /**
                 * @description `full` while writes are refused because the database's storage is full (503, code 11203; reads go
                 *     on, `status` is `degraded`), until space is freed.
                 * @enum {string}
                 */
                storage?: "ok" | "full";
                /**
                 * @description Whether the Redis that shares the rate limits answers (only when one is configured).
                 * @enum {string}
                 */
                redis?: "ok" | "unavailable";
            };
            /**
             * @description While the database does not answer: seconds since the catalogue served from memory was last known
             *     current (the `Catalogue-Age` header of catalogue answers). Absent otherwise.
             */
            catalogue_age_seconds?: number;
        };
        /**
         * @description `password` for initial obtaining, `refresh_token` for reissue; anything else is refused with code 11300.
         * @example password
         */
        GrantType: string;
        /**
         * @description Always `general`.
         * @example general
         */
        Scope: string;
        /**
         * @description The user's ledger public key (base58, 32 bytes), or, for an account whose keys come from an
         *     Ethereum-style wallet, its `0x` address (a mixed-case address must carry a valid EIP-55 checksum).
         * @example 4KxUVD9NtyRJjU3BCvPgJSttoJX7cb3DMdDTNucLN121
         */
        Username: string;
        /**
         * @description `<expiry>:<signature>`. `expiry` is a Unix time in seconds, decimal digits only, in the future and at
         *     most 604800 seconds (one week) plus 300 seconds of clock skew ahead of the server's clock. The signature
         *     is over the bytes `[255, 255, 255, 1]` followed by the UTF-8 text `<chain_id>:<client_id>:<expiry>`,
         *     made with the ledger key (Curve25519, base58, 64 bytes); for an Ethereum-style account it is the
         *     EIP-712 signature of the text (65 bytes, base58 or `0x` hex).
         * @example 1893456000:2SdV1pLJrN49TkTVxqXmkJ7fbi5J1wGHiUQV2jVUhiQ9WK7yEA9nsWd5uJmceTJEjtF3koveZkaZ7qEf6ovSE8QW
         */
        Password: string;
        /**
         * @description The client identifier; this server accepts `waves.exchange` and `wx.network` unless configured otherwise.
         * @example waves.exchange
         */
        ClientId: string;
        /**
         * @description The `refresh_token` of an earlier token response.
         * @example rt_9Hc2rTQv1m3P0WkA7yZbL5xNqE8sJfUd4GgVoKiB6Cw
         */
        RefreshToken: string;
        /**
         * NoParameters
         * @description A body without any parameter, read as no body.
         * @example {}
         */
        NoParameters: Record<string, never>;
        /**
         * ChainAssetId
         * @description Asset identifier of a currency on the exchange ledger (`WAVES` for the ledger's own token, else its
         *     44-character asset id): at most 64 characters.
         * @example 34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ
         */
        ChainAssetId: string;
        /**
         * PlatformAssetId
         * @description Identifier of a currency on an external blockchain (a token contract, a denomination, or the native
         *     coin's ticker): at most 128 characters.
         * @example 0xdAC17F958D2ee523a2206206994597C13D831ec7
         */
        PlatformAssetId: string;
        /**
         * CurrencyTerms
         * @description The terms of one currency on one platform, common to deposit and withdrawal.
         * @example {
         *       "id": "USDT",
         *       "platform_id": "ETH",
         *       "chain_asset_id": "34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ",
         *       "platform_asset_id": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
         *       "decimals": 6,
         *       "status": "active",
         *       "allowed_amount": {
         *         "min": 10,
         *         "max": 1000000
         *       },
         *       "fees": {
         *         "flat": 0,
         *         "rate": 0
         *       }
         *     }
         */
        CurrencyTerms: {
            id: components["schemas"]["CurrencyId"];
            platform_id: components["schemas"]["PlatformId"];
            chain_asset_id: components["schemas"]["ChainAssetId"];
            platform_asset_id: components["schemas"]["PlatformAssetId"];
            /**
             * @description Number of decimal places of the currency on the exchange.
             * @example 6
             */
            decimals: number;
            status: components["schemas"]["CurrencyStatus"];
            allowed_amount: components["schemas"]["AllowedAmount"];
            fees: components["schemas"]["Fees"];
        };
        /**
         * MovementId
         * @description Movement identifier.
         * @example 0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f
         */
        MovementId: string;
        /**
         * MovementDirection
         * @description Whether the movement brings a currency to the exchange ledger (deposit) or takes it away (withdrawal).
         * @example deposit
         * @enum {string}
         */
        MovementDirection: "deposit" | "withdrawal";
        /**
         * RecipientAddress
         * @description Recipient address of a movement (a ledger address for a deposit, an external address for a
         *     withdrawal): 1 to 128 characters, room for any blockchain's address.
         * @example 3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36
         */
        RecipientAddress: string;
        /**
         * TransactionId
         * @description A transaction's id on its platform: 1 to 128 letters, digits, `_` or `-`, after an optional `0x`
         *     prefix (at most 130 characters).
         * @example 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060
         */
        TransactionId: string;
        /**
         * MovementTransactions
         * @description The transactions that carried a movement: at most 16. The real service shows one on each side of a
         *     movement (the external platform's and the ledger's: two); 16 leaves room for a movement paid in parts
         *     while keeping a movement, and so a page of them, small. A feed record with more is refused.
         * @example [
         *       {
         *         "transaction_id": "9f1c0c4b1f7e6c7a3fa0a8a1d2e5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3",
         *         "platform_id": "BTC"
         *       },
         *       {
         *         "transaction_id": "E4dTtiN8GaiCJUY4WK8nFdCdiM5UdbX4jLKw1i3vCWWL",
         *         "platform_id": "WAVES"
         *       }
         *     ]
         */
        MovementTransactions: components["schemas"]["MovementTransaction"][];
        /**
         * PlatformName
         * @description A platform's name, at most 64 characters.
         * @example Ethereum
         */
        PlatformName: string;
        /**
         * ExchangeCurrencies
         * @description A list of currencies of the exchange (the catalogue's, or those of one platform): at most 500. The real
         *     service's gateway lists a few dozen; 500 keeps the catalogue, and a platform's list of currencies, small.
         *     Only the bound: each list says what its items are.
         * @example [
         *       "USDT",
         *       "WAVES"
         *     ]
         */
        ExchangeCurrencies: unknown;
        /**
         * TradeType
         * @description `buy` or `sell`, from the address's side.
         * @example buy
         * @enum {string}
         */
        TradeType: "buy" | "sell";
        /**
         * TradeId
         * @description A trade's identifier (the ledger transaction id), 1 to 128 letters, digits, `_` or `-`.
         * @example E4dTtiN8GaiCJUY4WK8nFdCdiM5UdbX4jLKw1i3vCWWL
         */
        TradeId: string;
    };
    responses: {
        /** @description The path exists, but not with this HTTP method. */
        MethodNotAllowed: {
            headers: {
                Allow: components["headers"]["Allow"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The `Accept` header excludes `application/json`. */
        NotAcceptable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description The request line and headers did not arrive within 10 seconds (the server's setting) of the request's
         *     first byte (of the connection's opening, for its first request), or the whole request within 30 seconds;
         *     the connection is closed.
         */
        RequestTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The request body is larger than 16 KiB. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The body's content type is not accepted by the operation. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description Too many requests from this client; retry after `Retry-After` seconds. */
        TooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The request line or headers are larger than 16 KiB. */
        HeadersTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description An unexpected error; details are logged by the server, never sent. */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description The database is unavailable, its storage is full (for what writes), or the instance is overloaded; retry
         *     after `Retry-After` seconds.
         */
        ServiceUnavailable: {
            headers: {
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The request is invalid (missing or invalid parameter, unreadable body, invalid cursor). */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description Deposit terms on the default platform. */
        DeprecatedDepositCurrency: {
            headers: {
                "Catalogue-Age": components["headers"]["CatalogueAge"];
                Deprecation: components["headers"]["Deprecation"];
                Link: components["headers"]["Link"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["DepositCurrency"];
            };
        };
        /** @description The currency or the platform is unknown, or the currency is not offered on the platform. */
        CurrencyNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description Deposit terms. */
        DepositCurrency: {
            headers: {
                "Catalogue-Age": components["headers"]["CatalogueAge"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["DepositCurrency"];
            };
        };
        /** @description The account's deposit address on the default platform, with the deposit terms. */
        DeprecatedDepositAddresses: {
            headers: {
                Deprecation: components["headers"]["Deprecation"];
                Link: components["headers"]["Link"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["DepositAddresses"];
            };
        };
        /** @description The access token is missing, malformed, expired or invalid. */
        Unauthorized: {
            headers: {
                "WWW-Authenticate": components["headers"]["WWWAuthenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The currency's operation is inactive on the platform. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The account's deposit address with the deposit terms. */
        DepositAddresses: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["DepositAddresses"];
            };
        };
        /** @description Withdrawal terms on the default platform. */
        DeprecatedWithdrawalCurrency: {
            headers: {
                "Catalogue-Age": components["headers"]["CatalogueAge"];
                Deprecation: components["headers"]["Deprecation"];
                Link: components["headers"]["Link"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WithdrawalCurrency"];
            };
        };
        /** @description Withdrawal terms. */
        WithdrawalCurrency: {
            headers: {
                "Catalogue-Age": components["headers"]["CatalogueAge"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WithdrawalCurrency"];
            };
        };
        /** @description The proxy ledger address on the default platform, with the withdrawal terms. */
        DeprecatedWithdrawalAddresses: {
            headers: {
                Deprecation: components["headers"]["Deprecation"];
                Link: components["headers"]["Link"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WithdrawalAddresses"];
            };
        };
        /**
         * @description The request is invalid: a missing or invalid parameter, or a destination that is not a valid address of
         *     the platform (10207, `details.reason`: `format`, `checksum`, `mixed_case` or `network`).
         */
        InvalidWithdrawalDestination: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description The currency's withdrawal is inactive on the platform (10101), or the account holds as many withdrawal
         *     addresses as it may and this destination would be a new one (10102).
         */
        WithdrawalForbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description Too many requests; or too many new withdrawal addresses created by the account this minute (the
         *     addresses it has are still answered). Retry after `Retry-After` seconds.
         */
        TooManyNewWithdrawalAddresses: {
            headers: {
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The proxy ledger address with the withdrawal terms. */
        WithdrawalAddresses: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WithdrawalAddresses"];
            };
        };
        /** @description No movement of the signed-in account has this id (another account's movement is reported the same way). */
        MovementNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description The `Accept` header excludes `text/event-stream`, the only representation of the event stream. The error
         *     itself is JSON.
         */
        NotAcceptableEventStream: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The account already holds as many event streams open on this instance as it may; one must close first. */
        TooManyEventStreams: {
            headers: {
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description This instance cannot open another event stream now: it holds as many as it can, it is overloaded, or the
         *     database is unavailable. Retry after `Retry-After` seconds.
         */
        EventStreamsUnavailable: {
            headers: {
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The platform is unknown. */
        PlatformNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The token does not exist, or it has no staking yield. */
        StakingYieldNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description No operation is served at this path on this port. */
        RouteNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description The `Accept` header excludes `text/plain`, the only representation of the metrics (the Prometheus text
         *     format). The error itself is JSON.
         */
        NotAcceptableMetrics: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
    };
    parameters: {
        /**
         * @description Page size, 1 to 100 (decided here; the interface leaves it open).
         * @example 50
         */
        CurrencyListLimit: number;
        /**
         * @description Number of items to skip, 0 to 1000000 (decided here; the interface leaves it open).
         * @example 0
         */
        CurrencyListOffset: number;
        /**
         * @description Currency ticker (list them with the currency list operation).
         * @example USDT
         */
        CurrencyPath: components["schemas"]["CurrencyId"];
        /**
         * @description Platform id (list them with `GET /v1/platforms`).
         * @example ETH
         */
        PlatformPath: components["schemas"]["PlatformId"];
        /**
         * @description Destination address on the external blockchain, valid for the platform: an EVM platform takes `0x` and
         *     40 hex digits (EIP-55 checksum when mixed case); Bitcoin takes bech32 or base58check of the configured
         *     network; the ledger's own platform takes a ledger address of this network.
         * @example 0x3f2b1c25A5f23b193560B97988ee98cBDb480730
         */
        WithdrawalDestinationPath: string;
        /**
         * @description Page size (uint16), 1 to 100.
         * @example 20
         */
        CursorListLimit: number;
        /**
         * @description The `page_info.last_cursor` of the previous page. Cursors are opaque and signed by the server that
         *     issued them, so no example is given: a made-up cursor is refused (400, code 10206).
         */
        After: components["schemas"]["Cursor"];
    };
    requestBodies: never;
    headers: {
        /**
         * @description Token responses are never cached (nor are the answers of operations that require a token, whose
         *     responses do not repeat this header).
         * @example no-store
         */
        CacheControl: "no-store";
        /**
         * @description The methods the path supports.
         * @example GET, HEAD
         */
        Allow: string;
        /**
         * @description Seconds to wait before retrying.
         * @example 30
         */
        RetryAfter: number;
        /**
         * @description Seconds since the catalogue this answer was built from was last known current. Sent only while the
         *     database does not answer: the instance then keeps serving the catalogue (platforms, currencies and their
         *     terms, staking yields) from memory, as it was when the database last answered, instead of failing. Absent
         *     on every other answer.
         * @example 12
         */
        CatalogueAge: number;
        /**
         * @description RFC 9745 deprecation date of the operation (a structured date, `@` + Unix seconds).
         * @example @1685577600
         */
        Deprecation: string;
        /**
         * @description The successor of the deprecated operation, with `rel="successor-version"` (RFC 8594).
         * @example </v1/deposit/currencies/USDT/ETH>; rel="successor-version"
         */
        Link: string;
        /**
         * @description The bearer challenge (RFC 6750).
         * @example Bearer realm="gateway", error="invalid_token"
         */
        WWWAuthenticate: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createToken: {
        parameters: {
            query?: {
                /**
                 * @deprecated
                 * @description Deprecated: send the parameters in the form body instead (`application/x-www-form-urlencoded`).
                 *     As in the body, for the deployed clients that send the parameters in the query string with an empty
                 *     body: still accepted, but a query string is written to access logs and proxies' logs, and this one
                 *     carries a password or a refresh token. Each request that sends a parameter here is counted in the
                 *     metric `gateway_deprecated_parameter_requests_total`.
                 */
                grant_type?: components["schemas"]["GrantType"];
                /**
                 * @deprecated
                 * @description Deprecated: send it in the form body instead. As in the body (see `grant_type` in the query).
                 */
                scope?: components["schemas"]["Scope"];
                /**
                 * @deprecated
                 * @description Deprecated: send it in the form body instead. As in the body (see `grant_type` in the query).
                 */
                username?: components["schemas"]["Username"];
                /**
                 * @deprecated
                 * @description Deprecated: send it in the form body instead. As in the body (see `grant_type` in the query).
                 */
                password?: components["schemas"]["Password"];
                /**
                 * @deprecated
                 * @description Deprecated: send it in the form body instead. As in the body (see `grant_type` in the query).
                 */
                client_id?: components["schemas"]["ClientId"];
                /**
                 * @deprecated
                 * @description Deprecated: send it in the form body instead. As in the body (see `grant_type` in the query).
                 */
                refresh_token?: components["schemas"]["RefreshToken"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A token request of one grant. May be empty when the parameters are in the query string. */
        requestBody?: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["TokenRequest"];
                "application/json": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description A token pair. */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /**
             * @description The request is refused. The code says which rule failed: a missing or invalid parameter
             *     (10200, 10201), an unreadable body (10204), or a token rule (11300 to 11309). The first example is
             *     the generic one (what the mock answers by default); the mock gives the others on request with
             *     `Prefer: code=400, example=<name>`.
             */
            400: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["RevocationRequest"];
                "application/json": components["schemas"]["RevocationRequest"];
            };
        };
        responses: {
            /**
             * @description The token's sign-in is revoked, or the token was not one this server issued (or was revoked or
             *     expired already): the answer is the same (RFC 7009, section 2.2). The body is an empty object.
             */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevocationResponse"];
                };
            };
            /**
             * @description The request is refused: `token` is missing (10200), a parameter is invalid (10201; for instance a
             *     `token_type_hint` other than `access_token` or `refresh_token`), the body is unreadable (10204), or
             *     `client_id` is not one this server accepts (11302).
             */
            400: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listDepositCurrencies: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1 to 100 (decided here; the interface leaves it open).
                 * @example 50
                 */
                limit?: components["parameters"]["CurrencyListLimit"];
                /**
                 * @description Number of items to skip, 0 to 1000000 (decided here; the interface leaves it open).
                 * @example 0
                 */
                offset?: components["parameters"]["CurrencyListOffset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deposit terms. */
            200: {
                headers: {
                    "Catalogue-Age": components["headers"]["CatalogueAge"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DepositCurrencyList"];
                };
            };
            400: components["responses"]["BadRequest"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getDepositCurrencyOnDefaultPlatform: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Currency ticker (list them with the currency list operation).
                 * @example USDT
                 */
                currency: components["parameters"]["CurrencyPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["DeprecatedDepositCurrency"];
            400: components["responses"]["BadRequest"];
            404: components["responses"]["CurrencyNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getDepositCurrency: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Currency ticker (list them with the currency list operation).
                 * @example USDT
                 */
                currency: components["parameters"]["CurrencyPath"];
                /**
                 * @description Platform id (list them with `GET /v1/platforms`).
                 * @example ETH
                 */
                platform: components["parameters"]["PlatformPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["DepositCurrency"];
            400: components["responses"]["BadRequest"];
            404: components["responses"]["CurrencyNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getDepositAddressesOnDefaultPlatform: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Currency ticker (list them with the currency list operation).
                 * @example USDT
                 */
                currency: components["parameters"]["CurrencyPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["DeprecatedDepositAddresses"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["CurrencyNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getDepositAddresses: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Currency ticker (list them with the currency list operation).
                 * @example USDT
                 */
                currency: components["parameters"]["CurrencyPath"];
                /**
                 * @description Platform id (list them with `GET /v1/platforms`).
                 * @example ETH
                 */
                platform: components["parameters"]["PlatformPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["DepositAddresses"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["CurrencyNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWithdrawalCurrencies: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1 to 100 (decided here; the interface leaves it open).
                 * @example 50
                 */
                limit?: components["parameters"]["CurrencyListLimit"];
                /**
                 * @description Number of items to skip, 0 to 1000000 (decided here; the interface leaves it open).
                 * @example 0
                 */
                offset?: components["parameters"]["CurrencyListOffset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of withdrawal terms. */
            200: {
                headers: {
                    "Catalogue-Age": components["headers"]["CatalogueAge"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WithdrawalCurrencyList"];
                };
            };
            400: components["responses"]["BadRequest"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWithdrawalCurrencyOnDefaultPlatform: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Currency ticker (list them with the currency list operation).
                 * @example USDT
                 */
                currency: components["parameters"]["CurrencyPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["DeprecatedWithdrawalCurrency"];
            400: components["responses"]["BadRequest"];
            404: components["responses"]["CurrencyNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWithdrawalCurrency: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Currency ticker (list them with the currency list operation).
                 * @example USDT
                 */
                currency: components["parameters"]["CurrencyPath"];
                /**
                 * @description Platform id (list them with `GET /v1/platforms`).
                 * @example ETH
                 */
                platform: components["parameters"]["PlatformPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["WithdrawalCurrency"];
            400: components["responses"]["BadRequest"];
            404: components["responses"]["CurrencyNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWithdrawalAddressesOnDefaultPlatform: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Currency ticker (list them with the currency list operation).
                 * @example USDT
                 */
                currency: components["parameters"]["CurrencyPath"];
                /**
                 * @description Destination address on the external blockchain, valid for the platform: an EVM platform takes `0x` and
                 *     40 hex digits (EIP-55 checksum when mixed case); Bitcoin takes bech32 or base58check of the configured
                 *     network; the ledger's own platform takes a ledger address of this network.
                 * @example 0x3f2b1c25A5f23b193560B97988ee98cBDb480730
                 */
                address: components["parameters"]["WithdrawalDestinationPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["DeprecatedWithdrawalAddresses"];
            400: components["responses"]["InvalidWithdrawalDestination"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["WithdrawalForbidden"];
            404: components["responses"]["CurrencyNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyNewWithdrawalAddresses"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWithdrawalAddresses: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Currency ticker (list them with the currency list operation).
                 * @example USDT
                 */
                currency: components["parameters"]["CurrencyPath"];
                /**
                 * @description Destination address on the external blockchain, valid for the platform: an EVM platform takes `0x` and
                 *     40 hex digits (EIP-55 checksum when mixed case); Bitcoin takes bech32 or base58check of the configured
                 *     network; the ledger's own platform takes a ledger address of this network.
                 * @example 0x3f2b1c25A5f23b193560B97988ee98cBDb480730
                 */
                address: components["parameters"]["WithdrawalDestinationPath"];
                /**
                 * @description Platform id (list them with `GET /v1/platforms`).
                 * @example ETH
                 */
                platform: components["parameters"]["PlatformPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["WithdrawalAddresses"];
            400: components["responses"]["InvalidWithdrawalDestination"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["WithdrawalForbidden"];
            404: components["responses"]["CurrencyNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyNewWithdrawalAddresses"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listMovements: {
        parameters: {
            query?: {
                /**
                 * @description Page size (uint16), 1 to 100.
                 * @example 20
                 */
                limit?: components["parameters"]["CursorListLimit"];
                /**
                 * @description The `page_info.last_cursor` of the previous page. Cursors are opaque and signed by the server that
                 *     issued them, so no example is given: a made-up cursor is refused (400, code 10206).
                 */
                after?: components["parameters"]["After"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of movements. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MovementList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getMovement: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Movement identifier.
                 * @example 0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f
                 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The movement. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Movement"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["MovementNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /**
                 * @description The same as the `Last-Event-ID` header, for clients that cannot set headers; the header wins.
                 * @example 42
                 */
                last_event_id?: components["schemas"]["EventId"];
            };
            header?: {
                /**
                 * @description The `id` of the last event the client received (an id of the account's own events); the stream resumes after it.
                 * @example 42
                 */
                "Last-Event-ID"?: components["schemas"]["EventId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream; it stays open until the access token expires or its sign-in is revoked. */
            200: {
                headers: {
                    /** @description Always `no-store`. */
                    "Cache-Control"?: "no-store";
                    /** @description Always `no`, so that a proxy passes each event on at once. */
                    "X-Accel-Buffering"?: "no";
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptableEventStream"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyEventStreams"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["EventStreamsUnavailable"];
        };
    };
    listPlatforms: {
        parameters: {
            query?: {
                /**
                 * @description Page size (uint16), 1 to 100.
                 * @example 20
                 */
                limit?: components["parameters"]["CursorListLimit"];
                /**
                 * @description The `page_info.last_cursor` of the previous page. Cursors are opaque and signed by the server that
                 *     issued them, so no example is given: a made-up cursor is refused (400, code 10206).
                 */
                after?: components["parameters"]["After"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of platforms. */
            200: {
                headers: {
                    "Catalogue-Age": components["headers"]["CatalogueAge"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlatformList"];
                };
            };
            400: components["responses"]["BadRequest"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPlatform: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Platform id.
                 * @example ETH
                 */
                id: components["schemas"]["PlatformId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The platform. */
            200: {
                headers: {
                    "Catalogue-Age": components["headers"]["CatalogueAge"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Platform"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["PlatformNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listTrades: {
        parameters: {
            query?: {
                /**
                 * @description Only trades at or after this time (ISO 8601 with a time zone).
                 * @example 2021-08-01T00:00:00Z
                 */
                timestamp__gte?: string;
                /**
                 * @description Only trades before this time (ISO 8601 with a time zone).
                 * @example 2021-09-01T00:00:00Z
                 */
                timestamp__lt?: string;
                /**
                 * @description Order by timestamp.
                 * @example desc
                 */
                sort?: "desc" | "asc";
                /**
                 * @description Page size (int64), 1 to 1000.
                 * @example 100
                 */
                limit?: number;
                /**
                 * @description The `page_info.last_cursor` of the previous page. Cursors are opaque and signed by the server that
                 *     issued them, so no example is given: a made-up cursor is refused (400, code 10206).
                 */
                after?: components["parameters"]["After"];
            };
            header?: never;
            path: {
                /**
                 * @description Ledger address of the trader.
                 * @example 3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36
                 */
                ledger_address: components["schemas"]["LedgerAddress"];
                /**
                 * @description Identifier of the amount currency of the pair.
                 * @example WAVES
                 */
                amount_currency_id: components["schemas"]["CurrencyId"];
                /**
                 * @description Identifier of the price currency of the pair.
                 * @example USDT
                 */
                price_currency_id: components["schemas"]["CurrencyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of trades. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TradeList"];
                };
            };
            400: components["responses"]["BadRequest"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getStakingYield: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Ticker of the token.
                 * @example WAVES
                 */
                currency_id: components["schemas"]["CurrencyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The staking yield. */
            200: {
                headers: {
                    "Catalogue-Age": components["headers"]["CatalogueAge"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StakingYield"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["StakingYieldNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process is alive. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Liveness"];
                };
            };
            400: components["responses"]["BadRequest"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The instance is ready. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            400: components["responses"]["BadRequest"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getServingState: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The instance serves; `checks` says what works. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServingState"];
                };
            };
            400: components["responses"]["BadRequest"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["RouteNotFound"];
            405: components["responses"]["MethodNotAllowed"];
            406: components["responses"]["NotAcceptableMetrics"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}
