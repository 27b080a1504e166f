/** Table types of the store. Amounts are canonical decimal text; times are UTC ISO 8601 text with ms. */
import type { components } from '@gateway/generated';
import type { ColumnType, CompiledQuery, Generated, Kysely } from 'kysely';
import type { ListenHandlers, Listening } from './listener.js';
import type { MovementRecord, TradeRecord } from './stored-records.js';
/** The spec's enumerations, so that a value removed from the spec is a compile error wherever it is used. */
export type Direction = components['schemas']['MovementDirection'];

/** A statement's text and values, what `firstColumn` runs: a CompiledQuery, or a plain object (pages.ts). */
export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

export interface PlatformTable {
  id: string;
  name: string;
  /** How the platform's addresses look: `evm` (0x, EIP-55) or `bitcoin` (bech32 P2WPKH). */
  address_kind: string;
  /** Extended public key (BIP32) that deposit addresses derive from. */
  xpub: string;
  /** `mainnet` or `testnet` (bitcoin); null for EVM. */
  network: string | null;
}

export interface CurrencyTable {
  id: string;
  chain_asset_id: string;
  decimals: number;
  default_platform_id: string;
}

export interface CurrencyTermsTable {
  direction: Direction;
  currency_id: string;
  platform_id: string;
  platform_asset_id: string;
  status: components['schemas']['CurrencyStatus'];
  min_amount: string;
  max_amount: string;
  fee_flat: string;
  fee_rate: string;
}

export interface StakingYieldTable {
  currency_id: string;
  apy: string;
}

/** A movement or trade as imported: declared once against the spec's feed records (store/stored-records.ts). */
export type { MovementRecord, TradeRecord };

/**
 * A stored movement or trade: its record and its document, the JSON text the API serves for it (rendered
 * when it is written, so that a page is read as one text per row; see store/documents.ts).
 */
export type MovementTable = MovementRecord & { document: string };
export type TradeTable = TradeRecord & { document: string };

export interface DepositAddressTable {
  account: string;
  platform_id: string;
  /** BIP32 child index under the platform's extended public key; unique per platform. */
  child_index: number;
  address: string;
  created_at: string;
}

export interface WithdrawalAddressTable {
  account: string;
  currency_id: string;
  destination: string;
  platform_id: string;
  /** Account nonce under the proxy seed; allocated once, unique. */
  proxy_index: number;
  proxy_address: string;
  created_at: string;
}

/** A column added after the table's first release: null in rows written before it, and optional to insert. */
type Added<T> = ColumnType<T | null, T | null | undefined, T | null>;

/**
 * A sign-in. Since migration 0011 it holds its refresh token too (store/token.ts): the live one by generation
 * and hash, those spent within the reuse grace, and when the sign-in ends. Null in those columns: a sign-in
 * whose tokens are rows of `refresh_tokens` (issued before 0011, or by the previous release).
 */
export interface TokenFamilyTable {
  id: string;
  account: string;
  revoked_at: string | null;
  created_at: string;
  /** The access-token claims its refreshes reissue (JSON). */
  claims: Added<string>;
  /** SHA-256 of the key every refresh token of the sign-in carries (hex): proof of having held one of them. */
  chain_hash: Added<string>;
  /** The live refresh token's generation: 0 for the first, one more with each token issued. */
  generation: Added<number>;
  /** SHA-256 of the live refresh token's secret (hex). */
  token_hash: Added<string>;
  token_expires_at: Added<string>;
  /** The tokens spent within the reuse grace (JSON, store/token.ts `SpentToken[]`). */
  spent_recently: Added<string>;
  /** When nothing the sign-in issued works any more: its live refresh token and the access token issued with it. */
  expires_at: Added<string>;
}

export interface RefreshTokenTable {
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  family_id: string;
  /** The access-token claims this refresh token reissues (JSON). */
  claims: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** Per account, the latest signed expiry of a revoked sign-in: passwords expiring at or before it are refused. */
export interface AccountSignOutTable {
  account: string;
  signed_out_through: string;
  updated_at: string;
}

export interface CatalogueVersionTable {
  id: number;
  version: number;
}

/** The format the stored documents were rendered in (one row); see store/documents.ts. */
export interface DocumentFormatTable {
  id: number;
  format: string;
}

/** An event of GET /v1/events: a movement created or changed, with the document it was written with. */
export interface MovementEventTable {
  /** Grows with every event of the server (PostgreSQL: in commit order, see store/events.ts): the readers' order. */
  seq: Generated<number>;
  account: string;
  /**
   * The event's id: 1, 2, 3… for each account, in `seq` order (store/events.ts). Null only on events recorded
   * before migration 0009 (a trigger numbers those the previous release records after it).
   */
  account_seq: number | null;
  movement_id: string;
  document: string;
  created_at: string;
}

/**
 * The highest `seq` pruned (one row), raised to at least 10^15 by migration 0009: the previous release's
 * resumes from below it get a reset (this release resumes by each account's ids instead).
 */
export interface EventRetentionTable {
  id: number;
  pruned_through: number;
}

/** Each account's last event id, and the ids below which were the server-wide ones of before (migration 0009). */
export interface EventAccountTable {
  account: string;
  last_id: number;
  legacy_through: ColumnType<number, number | undefined, number>;
}

export interface Database {
  catalogue_version: CatalogueVersionTable;
  document_format: DocumentFormatTable;
  platforms: PlatformTable;
  currencies: CurrencyTable;
  currency_terms: CurrencyTermsTable;
  staking_yields: StakingYieldTable;
  movements: MovementTable;
  trades: TradeTable;
  deposit_addresses: DepositAddressTable;
  withdrawal_addresses: WithdrawalAddressTable;
  token_families: TokenFamilyTable;
  refresh_tokens: RefreshTokenTable;
  account_sign_outs: AccountSignOutTable;
  movement_events: MovementEventTable;
  event_retention: EventRetentionTable;
  event_accounts: EventAccountTable;
}

export type DialectName = 'sqlite' | 'postgres';

/**
 * What the database's record of applied migrations means for this release. `ahead`: the migrations a newer
 * release applied (unknown here, named after this release's last one): the database is this release's schema
 * and more, which this release runs on (migrations are expand-only: docs/deployment.md, "Upgrades and
 * rollbacks"). `problem`: the record fits this release in no such way, in one sentence.
 */
export interface MigrationState {
  /** This release's migrations applied, in order. */
  applied: string[];
  /** This release's migrations not applied yet. */
  pending: string[];
  /** Migrations of a newer release applied, in order; empty unless every one of this release's is applied. */
  ahead: string[];
  problem: string | null;
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /**
   * Applies pending migrations, then renders stored documents again if their format changed
   * (store/documents.ts); returns what it did (migration names, rows rendered). A database ahead of this
   * release (migrated by a newer one) throws `DatabaseAhead`, one whose migrations do not fit it
   * `MigrationMismatch` (store/migrator.ts), with nothing applied or rendered.
   */
  migrate(): Promise<string[]>;
  /** The migrations applied to this store, pending, or applied by a newer release (nothing is applied). */
  migrationState(): Promise<MigrationState>;
  /**
   * The first column of every row of a statement (a compiled query's text and values), without building an object per row: the hot list
   * pages read their documents this way (a driver's per-row and per-value cost is most of a page's time).
   */
  firstColumn(query: Statement): Promise<unknown[]>;
  /**
   * Runs `statements` (writes without RETURNING) in order in one transaction and commits only if every one of
   * them changed at least one row; otherwise nothing is kept and the answer is false (a failure rolls back and
   * throws). On SQLite the transaction runs synchronously (BEGIN IMMEDIATE), so no other query of this
   * process comes between its statements.
   */
  allOrNothing(statements: readonly CompiledQuery[]): Promise<boolean>;
  /**
   * Hears the database's announcements of `topic` (PostgreSQL: `LISTEN`, see store/listener.ts). SQLite
   * makes none, since one process writes: `connected` runs once, and that process announces to itself.
   */
  listen(topic: string, on: ListenHandlers): Listening;
  /** Whether each topic listened to is heard now (PostgreSQL; SQLite listens to nothing). */
  listenState(): Record<string, boolean>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  /** Null when the database answers; otherwise why not (the first line of the driver's error). */
  unanswered(): Promise<string | null>;
  /** Connections of the pool by state. */
  poolState(): { total: number; idle: number; waiting: number };
  /**
   * The bytes free for the database's files, where this process can tell (SQLite: the file system of its
   * folder); null where it cannot (PostgreSQL's disk is the server's).
   */
  freeBytes(): Promise<number | null>;
  close(): Promise<void>;
}
