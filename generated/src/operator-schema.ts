// DO NOT EDIT. Generated from spec/ by `npm run generate` (scripts/generate.mjs).
// Change the spec and regenerate instead.

export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * MovementRecord
         * @description Not an API resource: one line of the movement feed an operator imports (`gateway movements import FILE`,
         *     one JSON object a line). The fields of a Movement plus the `account` that owns it; `type` may be left
         *     out. Amounts are FeedAmounts. What a schema cannot say is checked on import: the account is an address
         *     of the server's network, the currency is in the catalogue, and the amounts have at most its decimals.
         *     A record is upserted by `id`; its `created_at` and `account` (what places it in a list) may not change
         *     once stored: a record that changes either (the same instant in another zone is no change) is refused
         *     with its line number, and nothing of its batch is written.
         * @example {
         *       "id": "0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f",
         *       "account": "3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36",
         *       "direction": "deposit",
         *       "status": "confirmed",
         *       "source_platform_id": "BTC",
         *       "destination_platform_id": "WAVES",
         *       "currency_id": "BTC",
         *       "amount": "0.0128",
         *       "fee": "0.00001",
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
        MovementRecord: {
            /**
             * @description Left out, or the type the API serves movements with.
             * @constant
             */
            type?: "gateway_movement";
            id: components["schemas"]["MovementId"];
            account: components["schemas"]["LedgerAddress"];
            direction: components["schemas"]["MovementDirection"];
            status: components["schemas"]["MovementStatus"];
            source_platform_id: components["schemas"]["PlatformId"];
            destination_platform_id: components["schemas"]["PlatformId"];
            currency_id: components["schemas"]["CurrencyId"];
            amount: components["schemas"]["FeedAmount"];
            fee: components["schemas"]["FeedAmount"];
            created_at: components["schemas"]["FeedTime"];
            updated_at: components["schemas"]["FeedTime"];
            recipient_address: components["schemas"]["RecipientAddress"];
            /** @description Its transactions, at most as many as a Movement has (MovementTransactions). */
            transactions: components["schemas"]["FeedTransaction"][] & components["schemas"]["MovementTransactions"];
        };
        /**
         * TradeRecord
         * @description Not an API resource: one line of the trade feed an operator imports (`gateway trades import FILE`, one
         *     JSON object a line): a Trade as one of its two addresses sees it, with that `address` and the pair's
         *     currencies. Amounts are FeedAmounts. On import the address must be one of the server's network. A
         *     record is upserted by `address` and `id`; its `timestamp` (what places it in a list) may not change
         *     once stored: a record that changes it is refused with its line number, and nothing of its batch is
         *     written.
         * @example {
         *       "id": "wn6SzGGxDVqtefRaczevwTFPAH1hTabt6rxLUjb7JAKt",
         *       "address": "3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36",
         *       "amount_currency_id": "WAVES",
         *       "price_currency_id": "USDT",
         *       "type": "buy",
         *       "timestamp": "2021-08-01T01:32:50.517Z",
         *       "amount": "94.786925",
         *       "price": "15.96315"
         *     }
         */
        TradeRecord: {
            id: components["schemas"]["TradeId"];
            address: components["schemas"]["LedgerAddress"];
            amount_currency_id: components["schemas"]["CurrencyId"];
            price_currency_id: components["schemas"]["CurrencyId"];
            type: components["schemas"]["TradeType"];
            timestamp: components["schemas"]["FeedTime"];
            amount: components["schemas"]["FeedAmount"];
            price: components["schemas"]["FeedAmount"];
        };
        /**
         * Catalogue
         * @description Not an API resource: the file an operator loads with `gateway catalogue load FILE` (YAML or JSON), from
         *     which the platform, deposit, withdrawal and staking operations answer. It is read with YAML's failsafe
         *     schema, so every scalar is text: numbers are written as decimal text (quoted or not) and stay exact.
         *     What a schema cannot say is checked on load: ids are unique; a currency's platforms and default platform
         *     are platforms of the catalogue, each with deposit or withdrawal terms; its amounts have at most its decimals; min is at most max and fee_rate at
         *     most 1; an `evm` or `bitcoin` platform has an extended public key and a `ledger` one none; only a
         *     `bitcoin` platform has a network (and must); nothing takes a fee on a `ledger` platform; staking yields
         *     are of catalogue currencies, with at most 8 decimals. Every list and text has a maximum, beyond what a
         *     real exchange needs (at most 100 platforms, 500 currencies, 16 platforms a currency), so that what the
         *     catalogue answers stays small.
         * @example {
         *       "platforms": [
         *         {
         *           "id": "ETH",
         *           "name": "Ethereum",
         *           "address_kind": "evm",
         *           "xpub": "xpub6EusP3DQk2HhzgbFwcjtQaNrQg9NGaT9NC9qxv1fohsuiPozQx3FQL7fdtQYZXrLrjysWFmfqoWK5sdUhQMgzg6CT6ofrXxG9Xm6pabA2hS"
         *         }
         *       ],
         *       "currencies": [
         *         {
         *           "id": "USDT",
         *           "chain_asset_id": "34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ",
         *           "decimals": "6",
         *           "default_platform": "ETH",
         *           "platforms": {
         *             "ETH": {
         *               "platform_asset_id": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
         *               "deposit": {
         *                 "status": "active",
         *                 "min": "10",
         *                 "max": "1000000",
         *                 "fee_flat": "0",
         *                 "fee_rate": "0"
         *               },
         *               "withdrawal": {
         *                 "status": "active",
         *                 "min": "20",
         *                 "max": "500000",
         *                 "fee_flat": "5",
         *                 "fee_rate": "0.001"
         *               }
         *             }
         *           }
         *         }
         *       ],
         *       "staking": [
         *         {
         *           "currency": "USDT",
         *           "apy": "6.22"
         *         }
         *       ]
         *     }
         */
        Catalogue: {
            /** @description At most 100 (the real service has a handful). */
            platforms: components["schemas"]["CataloguePlatform"][];
            currencies: components["schemas"]["CatalogueCurrency"][] & components["schemas"]["ExchangeCurrencies"];
            staking?: components["schemas"]["CatalogueStakingYield"][] & components["schemas"]["ExchangeCurrencies"];
        };
        /**
         * MovementId
         * @description Movement identifier.
         * @example 0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f
         */
        MovementId: string;
        /**
         * LedgerAddress
         * @description An address on the exchange ledger: 26 bytes in base58 (35 characters), beginning with `3P` on the main
         *     network (`W`) and `3M`/`3N` on the test network (`T`).
         * @example 3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36
         */
        LedgerAddress: string;
        /**
         * MovementDirection
         * @description Whether the movement brings a currency to the exchange ledger (deposit) or takes it away (withdrawal).
         * @example deposit
         * @enum {string}
         */
        MovementDirection: "deposit" | "withdrawal";
        /**
         * MovementStatus
         * @description State of a movement. The interface does not define transitions between states, and neither does this
         *     gateway: it reports the state its feed records.
         * @example confirmed
         * @enum {string}
         */
        MovementStatus: "in_progress" | "pending_approval" | "confirmed" | "rejected";
        /**
         * PlatformId
         * @description Identifier of a platform (an external blockchain). Case-sensitive.
         * @example ETH
         */
        PlatformId: string;
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
         * FeedAmount
         * Format: decimal
         * @description Not an API resource: an amount in a feed record, in whole currency units. A non-negative decimal of at
         *     most 30 integer and 18 fractional digits, without exponent (as text, at most 49 characters). Prefer a
         *     string (`"0.0128"`), which stays exact; a JSON number is read as its shortest decimal text, so `1e-7`
         *     is refused. On import the amount may not have more decimals than its currency.
         * @example 0.0128
         */
        FeedAmount: string | number;
        /**
         * FeedTime
         * Format: date-time
         * @description Not an API resource: a time in a feed record: an ISO 8601 date-time with a time zone (`Z` or `±hh:mm`)
         *     and at most 9 fractional digits of a second (at most 35 characters). Stored and served in UTC with
         *     milliseconds.
         * @example 2020-11-03T10:34:02.630+02:00
         */
        FeedTime: string;
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
         * FeedTransaction
         * @description Not an API resource: a transaction of a movement record, served as a MovementTransaction (no other
         *     field is allowed).
         * @example {
         *       "transaction_id": "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
         *       "platform_id": "ETH"
         *     }
         */
        FeedTransaction: {
            transaction_id: components["schemas"]["TransactionId"];
            platform_id: components["schemas"]["PlatformId"];
        };
        /**
         * TradeId
         * @description A trade's identifier (the ledger transaction id), 1 to 128 letters, digits, `_` or `-`.
         * @example E4dTtiN8GaiCJUY4WK8nFdCdiM5UdbX4jLKw1i3vCWWL
         */
        TradeId: string;
        /**
         * TradeType
         * @description `buy` or `sell`, from the address's side.
         * @example buy
         * @enum {string}
         */
        TradeType: "buy" | "sell";
        /**
         * CatalogueText
         * @description Not an API resource: text of a catalogue entry that may not be blank.
         * @example Ethereum
         */
        CatalogueText: string;
        /**
         * PlatformName
         * @description A platform's name, at most 64 characters.
         * @example Ethereum
         */
        PlatformName: string;
        /**
         * AddressKind
         * @description Not an API resource: how a catalogue platform's addresses look and are given. `evm` (0x, EIP-55) and
         *     `bitcoin` (bech32 P2WPKH): deposit addresses derive from the platform's extended public key. `ledger`:
         *     the exchange ledger itself, where a deposit goes to the account's own address and a withdrawal straight
         *     to its destination.
         * @example evm
         * @enum {string}
         */
        AddressKind: "evm" | "bitcoin" | "ledger";
        /**
         * CataloguePlatform
         * @description Not an API resource: a platform of the catalogue.
         * @example {
         *       "id": "BTC",
         *       "name": "Bitcoin",
         *       "address_kind": "bitcoin",
         *       "network": "mainnet",
         *       "xpub": "xpub6E7s5uMYWvsL2ccAyD9HtM5ekXt2kQ4S5nSzpU5JfGy4qph2G4UpksevDLdBn1gMEgRUPfDz1MTTLw2WRAyeoMrLzuGuWRasgLU1HbuqhQw"
         *     }
         */
        CataloguePlatform: {
            id: components["schemas"]["PlatformId"];
            name: components["schemas"]["CatalogueText"] & components["schemas"]["PlatformName"];
            address_kind: components["schemas"]["AddressKind"];
            /**
             * @description The network of a `bitcoin` platform (required there, and nowhere else).
             * @enum {string}
             */
            network?: "mainnet" | "testnet";
            /**
             * @description Extended public key (BIP32, `xpub…` or `tpub…`: 82 bytes in base58, at most 112 characters) that
             *     deposit addresses derive from; required for `evm` and `bitcoin`, never given for `ledger`. Never a
             *     private key.
             */
            xpub?: string;
        };
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
         * CurrencyStatus
         * @description `active`: the operation (deposit or withdrawal) is enabled. `inactive`: it is disabled.
         * @example active
         * @enum {string}
         */
        CurrencyStatus: "active" | "inactive";
        /**
         * CatalogueDecimal
         * Format: decimal
         * @description Not an API resource: an amount of the catalogue, as text: a non-negative decimal of at most 30 integer
         *     and 18 fractional digits, without exponent (`0.001`; at most 49 characters).
         * @example 0.001
         */
        CatalogueDecimal: string;
        /**
         * CatalogueTerms
         * @description Not an API resource: the terms of one operation (deposit or withdrawal) of a currency on a platform, served
         *     as its status, allowed_amount and fees.
         * @example {
         *       "status": "active",
         *       "min": "20",
         *       "max": "500000",
         *       "fee_flat": "5",
         *       "fee_rate": "0.001"
         *     }
         */
        CatalogueTerms: {
            status: components["schemas"]["CurrencyStatus"];
            min: components["schemas"]["CatalogueDecimal"];
            max: components["schemas"]["CatalogueDecimal"];
            /** @default 0 */
            fee_flat: components["schemas"]["CatalogueDecimal"];
            /** @default 0 */
            fee_rate: components["schemas"]["CatalogueDecimal"];
        };
        /**
         * CatalogueOffer
         * @description Not an API resource: a currency on one platform of the catalogue: deposit terms, withdrawal terms or both.
         * @example {
         *       "platform_asset_id": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
         *       "withdrawal": {
         *         "status": "active",
         *         "min": "20",
         *         "max": "500000",
         *         "fee_flat": "5",
         *         "fee_rate": "0.001"
         *       }
         *     }
         */
        CatalogueOffer: {
            platform_asset_id: components["schemas"]["CatalogueText"] & components["schemas"]["PlatformAssetId"];
            deposit?: components["schemas"]["CatalogueTerms"];
            withdrawal?: components["schemas"]["CatalogueTerms"];
        };
        /**
         * CatalogueCurrency
         * @description Not an API resource: a currency of the catalogue and its terms on each platform that carries it.
         * @example {
         *       "id": "USDT",
         *       "chain_asset_id": "34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ",
         *       "decimals": "6",
         *       "default_platform": "ETH",
         *       "platforms": {
         *         "ETH": {
         *           "platform_asset_id": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
         *           "deposit": {
         *             "status": "active",
         *             "min": "10",
         *             "max": "1000000"
         *           }
         *         }
         *       }
         *     }
         */
        CatalogueCurrency: {
            id: components["schemas"]["CurrencyId"];
            chain_asset_id: components["schemas"]["CatalogueText"] & components["schemas"]["ChainAssetId"];
            /** @description Number of decimal places, 0 to 18 (as text). */
            decimals: string;
            default_platform: components["schemas"]["PlatformId"];
            /** @description Its terms by platform id, on 1 to 16 platforms (the real service's currencies are on a few). */
            platforms: {
                [key: string]: components["schemas"]["CatalogueOffer"];
            };
        };
        /**
         * CatalogueStakingYield
         * @description Not an API resource: the staking yield of a catalogue currency, served as a StakingYield.
         * @example {
         *       "currency": "USDT",
         *       "apy": "6.22"
         *     }
         */
        CatalogueStakingYield: {
            currency: components["schemas"]["CurrencyId"];
            apy: components["schemas"]["CatalogueDecimal"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
