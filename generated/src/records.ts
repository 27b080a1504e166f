// DO NOT EDIT. Generated from spec/ by `npm run generate` (scripts/generate.mjs).
// Change the spec and regenerate instead.

import type { components } from './operator-schema.js';

/** The schemas of the records operators load (`x-loaded-by` in the spec). */
export const recordNames = ["MovementRecord","TradeRecord","Catalogue"] as const;
export type RecordName = (typeof recordNames)[number];

/** Those schemas and every schema they refer to, as a document in which their `$ref`s resolve. */
export const recordSchemas = {
  "$id": "gateway-records",
  "components": {
    "schemas": {
      "MovementRecord": {
        "title": "MovementRecord",
        "x-loaded-by": "gateway movements import",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "account",
          "direction",
          "status",
          "source_platform_id",
          "destination_platform_id",
          "currency_id",
          "amount",
          "fee",
          "created_at",
          "updated_at",
          "recipient_address",
          "transactions"
        ],
        "properties": {
          "type": {
            "type": "string",
            "const": "gateway_movement"
          },
          "id": {
            "$ref": "#/components/schemas/MovementId"
          },
          "account": {
            "$ref": "#/components/schemas/LedgerAddress"
          },
          "direction": {
            "$ref": "#/components/schemas/MovementDirection"
          },
          "status": {
            "$ref": "#/components/schemas/MovementStatus"
          },
          "source_platform_id": {
            "$ref": "#/components/schemas/PlatformId"
          },
          "destination_platform_id": {
            "$ref": "#/components/schemas/PlatformId"
          },
          "currency_id": {
            "$ref": "#/components/schemas/CurrencyId"
          },
          "amount": {
            "$ref": "#/components/schemas/FeedAmount"
          },
          "fee": {
            "$ref": "#/components/schemas/FeedAmount"
          },
          "created_at": {
            "$ref": "#/components/schemas/FeedTime"
          },
          "updated_at": {
            "$ref": "#/components/schemas/FeedTime"
          },
          "recipient_address": {
            "$ref": "#/components/schemas/RecipientAddress"
          },
          "transactions": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/FeedTransaction"
            },
            "allOf": [
              {
                "$ref": "#/components/schemas/MovementTransactions"
              }
            ]
          }
        }
      },
      "TradeRecord": {
        "title": "TradeRecord",
        "x-loaded-by": "gateway trades import",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "address",
          "amount_currency_id",
          "price_currency_id",
          "type",
          "timestamp",
          "amount",
          "price"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/TradeId"
          },
          "address": {
            "$ref": "#/components/schemas/LedgerAddress"
          },
          "amount_currency_id": {
            "$ref": "#/components/schemas/CurrencyId"
          },
          "price_currency_id": {
            "$ref": "#/components/schemas/CurrencyId"
          },
          "type": {
            "$ref": "#/components/schemas/TradeType"
          },
          "timestamp": {
            "$ref": "#/components/schemas/FeedTime"
          },
          "amount": {
            "$ref": "#/components/schemas/FeedAmount"
          },
          "price": {
            "$ref": "#/components/schemas/FeedAmount"
          }
        }
      },
      "Catalogue": {
        "title": "Catalogue",
        "x-loaded-by": "gateway catalogue load",
        "type": "object",
        "required": [
          "platforms",
          "currencies"
        ],
        "properties": {
          "platforms": {
            "type": "array",
            "maxItems": 100,
            "items": {
              "$ref": "#/components/schemas/CataloguePlatform"
            }
          },
          "currencies": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/CatalogueCurrency"
            },
            "allOf": [
              {
                "$ref": "#/components/schemas/ExchangeCurrencies"
              }
            ]
          },
          "staking": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/CatalogueStakingYield"
            },
            "allOf": [
              {
                "$ref": "#/components/schemas/ExchangeCurrencies"
              }
            ]
          }
        }
      },
      "MovementId": {
        "title": "MovementId",
        "type": "string",
        "pattern": "^[A-Za-z0-9_-]{1,64}$"
      },
      "LedgerAddress": {
        "title": "LedgerAddress",
        "type": "string",
        "pattern": "^[1-9A-HJ-NP-Za-km-z]{35}$"
      },
      "MovementDirection": {
        "title": "MovementDirection",
        "type": "string",
        "enum": [
          "deposit",
          "withdrawal"
        ]
      },
      "MovementStatus": {
        "title": "MovementStatus",
        "type": "string",
        "enum": [
          "in_progress",
          "pending_approval",
          "confirmed",
          "rejected"
        ]
      },
      "PlatformId": {
        "title": "PlatformId",
        "type": "string",
        "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$"
      },
      "CurrencyId": {
        "title": "CurrencyId",
        "type": "string",
        "pattern": "^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,31}|[1-9A-HJ-NP-Za-km-z]{43,44})$"
      },
      "FeedAmount": {
        "title": "FeedAmount",
        "type": [
          "string",
          "number"
        ],
        "format": "decimal",
        "maxLength": 49,
        "minimum": 0
      },
      "FeedTime": {
        "title": "FeedTime",
        "type": "string",
        "format": "date-time",
        "maxLength": 35
      },
      "RecipientAddress": {
        "title": "RecipientAddress",
        "type": "string",
        "minLength": 1,
        "maxLength": 128
      },
      "TransactionId": {
        "title": "TransactionId",
        "type": "string",
        "maxLength": 130,
        "pattern": "^(?:0x[A-Za-z0-9_-]{1,128}|(?!0x)[A-Za-z0-9_-]{1,128})$"
      },
      "MovementTransaction": {
        "title": "MovementTransaction",
        "type": "object",
        "required": [
          "transaction_id",
          "platform_id"
        ],
        "properties": {
          "transaction_id": {
            "$ref": "#/components/schemas/TransactionId"
          },
          "platform_id": {
            "$ref": "#/components/schemas/PlatformId"
          }
        }
      },
      "MovementTransactions": {
        "title": "MovementTransactions",
        "type": "array",
        "maxItems": 16,
        "items": {
          "$ref": "#/components/schemas/MovementTransaction"
        }
      },
      "FeedTransaction": {
        "title": "FeedTransaction",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "transaction_id",
          "platform_id"
        ],
        "properties": {
          "transaction_id": {
            "$ref": "#/components/schemas/TransactionId"
          },
          "platform_id": {
            "$ref": "#/components/schemas/PlatformId"
          }
        }
      },
      "TradeId": {
        "title": "TradeId",
        "type": "string",
        "maxLength": 128,
        "pattern": "^[A-Za-z0-9_-]{1,128}$"
      },
      "TradeType": {
        "title": "TradeType",
        "type": "string",
        "enum": [
          "buy",
          "sell"
        ]
      },
      "CatalogueText": {
        "title": "CatalogueText",
        "type": "string",
        "pattern": "\\S"
      },
      "PlatformName": {
        "title": "PlatformName",
        "type": "string",
        "maxLength": 64
      },
      "AddressKind": {
        "title": "AddressKind",
        "type": "string",
        "enum": [
          "evm",
          "bitcoin",
          "ledger"
        ]
      },
      "CataloguePlatform": {
        "title": "CataloguePlatform",
        "type": "object",
        "required": [
          "id",
          "name",
          "address_kind"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/PlatformId"
          },
          "name": {
            "allOf": [
              {
                "$ref": "#/components/schemas/CatalogueText"
              },
              {
                "$ref": "#/components/schemas/PlatformName"
              }
            ]
          },
          "address_kind": {
            "$ref": "#/components/schemas/AddressKind"
          },
          "network": {
            "type": "string",
            "enum": [
              "mainnet",
              "testnet"
            ]
          },
          "xpub": {
            "type": "string",
            "maxLength": 112
          }
        }
      },
      "ExchangeCurrencies": {
        "title": "ExchangeCurrencies",
        "maxItems": 500
      },
      "ChainAssetId": {
        "title": "ChainAssetId",
        "type": "string",
        "maxLength": 64
      },
      "PlatformAssetId": {
        "title": "PlatformAssetId",
        "type": "string",
        "maxLength": 128
      },
      "CurrencyStatus": {
        "title": "CurrencyStatus",
        "type": "string",
        "enum": [
          "active",
          "inactive"
        ]
      },
      "CatalogueDecimal": {
        "title": "CatalogueDecimal",
        "type": "string",
        "format": "decimal",
        "maxLength": 49
      },
      "CatalogueTerms": {
        "title": "CatalogueTerms",
        "type": "object",
        "required": [
          "status",
          "min",
          "max"
        ],
        "properties": {
          "status": {
            "$ref": "#/components/schemas/CurrencyStatus"
          },
          "min": {
            "$ref": "#/components/schemas/CatalogueDecimal"
          },
          "max": {
            "$ref": "#/components/schemas/CatalogueDecimal"
          },
          "fee_flat": {
            "allOf": [
              {
                "$ref": "#/components/schemas/CatalogueDecimal"
              }
            ],
            "default": "0"
          },
          "fee_rate": {
            "allOf": [
              {
                "$ref": "#/components/schemas/CatalogueDecimal"
              }
            ],
            "default": "0"
          }
        }
      },
      "CatalogueOffer": {
        "title": "CatalogueOffer",
        "type": "object",
        "required": [
          "platform_asset_id"
        ],
        "properties": {
          "platform_asset_id": {
            "allOf": [
              {
                "$ref": "#/components/schemas/CatalogueText"
              },
              {
                "$ref": "#/components/schemas/PlatformAssetId"
              }
            ]
          },
          "deposit": {
            "$ref": "#/components/schemas/CatalogueTerms"
          },
          "withdrawal": {
            "$ref": "#/components/schemas/CatalogueTerms"
          }
        }
      },
      "CatalogueCurrency": {
        "title": "CatalogueCurrency",
        "type": "object",
        "required": [
          "id",
          "chain_asset_id",
          "decimals",
          "default_platform",
          "platforms"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/CurrencyId"
          },
          "chain_asset_id": {
            "allOf": [
              {
                "$ref": "#/components/schemas/CatalogueText"
              },
              {
                "$ref": "#/components/schemas/ChainAssetId"
              }
            ]
          },
          "decimals": {
            "type": "string",
            "pattern": "^(?:0?[0-9]|1[0-8])$"
          },
          "default_platform": {
            "$ref": "#/components/schemas/PlatformId"
          },
          "platforms": {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 16,
            "propertyNames": {
              "$ref": "#/components/schemas/PlatformId"
            },
            "additionalProperties": {
              "$ref": "#/components/schemas/CatalogueOffer"
            }
          }
        }
      },
      "CatalogueStakingYield": {
        "title": "CatalogueStakingYield",
        "type": "object",
        "required": [
          "currency",
          "apy"
        ],
        "properties": {
          "currency": {
            "$ref": "#/components/schemas/CurrencyId"
          },
          "apy": {
            "$ref": "#/components/schemas/CatalogueDecimal"
          }
        }
      }
    }
  }
};

/** The types of the operator document's schemas (the records and the schemas they share with the API). */
export type RecordTypes = components['schemas'];
