/**
 * The catalogue an operator loads (`gateway catalogue load FILE`): platforms, currencies with their
 * per-platform deposit and withdrawal terms, and staking yields. YAML or JSON; every scalar is read as text
 * so amounts stay exact. Errors name the entry and the field.
 */
import { parse } from 'yaml';
import { compareDecimal, type DecimalText, fractionDigits, parseDecimal } from '../lib/decimal.js';
import { ADDRESS_KINDS, type AddressKind, isLedgerPlatform, parseExtendedPublicKey } from './addresses.js';
import { idPatterns } from './patterns.js';

export interface TermsEntry {
  status: 'active' | 'inactive';
  min: DecimalText;
  max: DecimalText;
  feeFlat: DecimalText;
  feeRate: DecimalText;
}

export interface Catalogue {
  platforms: { id: string; name: string; addressKind: AddressKind; xpub: string; network: string | null }[];
  currencies: {
    id: string;
    chainAssetId: string;
    decimals: number;
    defaultPlatform: string;
    platforms: { platformId: string; platformAssetId: string; deposit?: TermsEntry; withdrawal?: TermsEntry }[];
  }[];
  staking: { currency: string; apy: DecimalText }[];
}

export class CatalogueError extends Error {
  constructor(readonly problems: string[]) {
    super(`the catalogue is invalid:\n  ${problems.join('\n  ')}`);
  }
}

type Raw = Record<string, unknown>;
const isMap = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Parses and validates a catalogue; throws CatalogueError listing every problem. */
export function parseCatalogue(text: string): Catalogue {
  const problems: string[] = [];
  let root: unknown;
  try {
    root = parse(text, { schema: 'failsafe' });
  } catch (error) {
    throw new CatalogueError([`not YAML or JSON: ${(error as Error).message.split('\n')[0]}`]);
  }
  if (!isMap(root)) throw new CatalogueError(['the file must hold a mapping with platforms, currencies and staking']);
  for (const key of ['platforms', 'currencies']) {
    if (!Array.isArray(root[key])) problems.push(`${key}: must be a list`);
  }
  if (root.staking !== undefined && !Array.isArray(root.staking)) problems.push('staking: must be a list');

  const text_ = (where: string, value: unknown, pattern?: RegExp): string => {
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`${where}: is required`);
      return '';
    }
    if (pattern && !pattern.test(value)) problems.push(`${where}: "${value}" does not match ${pattern}`);
    return value;
  };
  const decimal = (where: string, value: unknown, maxDigits: number): DecimalText => {
    const parsed = parseDecimal(value);
    if (parsed === null) {
      problems.push(`${where}: must be a non-negative decimal number`);
      return '0' as DecimalText;
    }
    if (fractionDigits(parsed) > maxDigits) problems.push(`${where}: ${parsed} has more than ${maxDigits} decimals`);
    return parsed;
  };

  const platforms: Catalogue['platforms'] = list(root.platforms).map((raw, i) => {
    const entry = isMap(raw) ? raw : {};
    const id = text_(`platforms[${i}].id`, entry.id, idPatterns.platform);
    const where = `platforms[${i}] (${id || '?'})`;
    const name = text_(`${where}.name`, entry.name);
    const addressKind = text_(`${where}.address_kind`, entry.address_kind) as AddressKind;
    if (addressKind && !ADDRESS_KINDS.includes(addressKind)) {
      problems.push(`${where}.address_kind: must be one of ${ADDRESS_KINDS.join(', ')}`);
    }
    const network = typeof entry.network === 'string' ? entry.network : null;
    if (addressKind === 'bitcoin' && network !== 'mainnet' && network !== 'testnet') {
      problems.push(`${where}.network: must be mainnet or testnet for a bitcoin platform`);
    }
    if (addressKind !== 'bitcoin' && entry.network !== undefined) {
      problems.push(`${where}.network: only a bitcoin platform has a network`);
    }
    const xpub = typeof entry.xpub === 'string' ? entry.xpub : '';
    if (addressKind === 'evm' || addressKind === 'bitcoin') {
      // Deposit addresses of these platforms are derived from the extended public key.
      if (xpub === '') problems.push(`${where}.xpub: is required for a platform of kind ${addressKind}`);
      else {
        try {
          parseExtendedPublicKey(xpub);
        } catch (error) {
          problems.push(`${where}.xpub: not an extended public key (${(error as Error).message})`);
        }
      }
    } else if (isLedgerPlatform({ address_kind: addressKind }) && entry.xpub !== undefined) {
      problems.push(
        `${where}.xpub: must not be given for a ledger platform (its deposit address is the account's own)`,
      );
    }
    return { id, name, addressKind, xpub, network };
  });
  const platformIds = new Set(platforms.map((p) => p.id));
  if (platformIds.size !== platforms.length) problems.push('platforms: ids must be unique');
  const ledgerPlatforms = new Set(
    platforms.filter((p) => isLedgerPlatform({ address_kind: p.addressKind })).map((p) => p.id),
  );

  const terms = (where: string, raw: unknown, decimals: number, onLedger: boolean): TermsEntry | undefined => {
    if (raw === undefined) return undefined;
    if (!isMap(raw)) {
      problems.push(`${where}: must be a mapping`);
      return undefined;
    }
    const status = raw.status as TermsEntry['status'];
    if (status !== 'active' && status !== 'inactive') problems.push(`${where}.status: must be active or inactive`);
    const min = decimal(`${where}.min`, raw.min, decimals);
    const max = decimal(`${where}.max`, raw.max, decimals);
    if (compareDecimal(min, max) > 0) problems.push(`${where}: min ${min} is above max ${max}`);
    const feeFlat = decimal(`${where}.fee_flat`, raw.fee_flat ?? '0', decimals);
    const feeRate = decimal(`${where}.fee_rate`, raw.fee_rate ?? '0', 18);
    if (compareDecimal(feeRate, '1' as DecimalText) > 0) problems.push(`${where}.fee_rate: must be at most 1`);
    // On the ledger's own platform the transfer goes straight to its recipient: nothing can take a fee.
    if (onLedger) {
      for (const [field, value] of [
        ['fee_flat', feeFlat],
        ['fee_rate', feeRate],
      ] as const) {
        if (compareDecimal(value, '0' as DecimalText) !== 0) {
          problems.push(
            `${where}.${field}: must be 0 on a ledger platform (transfers there go straight to the recipient)`,
          );
        }
      }
    }
    return { status, min, max, feeFlat, feeRate };
  };

  const currencies: Catalogue['currencies'] = list(root.currencies).map((raw, i) => {
    const entry = isMap(raw) ? raw : {};
    const id = text_(`currencies[${i}].id`, entry.id, idPatterns.currency);
    const where = `currencies[${i}] (${id || '?'})`;
    const chainAssetId = text_(`${where}.chain_asset_id`, entry.chain_asset_id);
    const decimals = Number(entry.decimals);
    if (!/^\d{1,2}$/.test(String(entry.decimals)) || decimals > 18) {
      problems.push(`${where}.decimals: must be an integer from 0 to 18`);
    }
    const defaultPlatform = text_(`${where}.default_platform`, entry.default_platform);
    const perPlatform = isMap(entry.platforms) ? entry.platforms : {};
    if (!isMap(entry.platforms) || Object.keys(perPlatform).length === 0) {
      problems.push(`${where}.platforms: must map at least one platform id to its terms`);
    }
    const offered = Object.entries(perPlatform).map(([platformId, rawTerms]) => {
      const at = `${where}.platforms.${platformId}`;
      if (!platformIds.has(platformId)) problems.push(`${at}: unknown platform ${platformId}`);
      const t = isMap(rawTerms) ? rawTerms : {};
      const onLedger = ledgerPlatforms.has(platformId);
      const deposit = terms(`${at}.deposit`, t.deposit, decimals, onLedger);
      const withdrawal = terms(`${at}.withdrawal`, t.withdrawal, decimals, onLedger);
      if (!deposit && !withdrawal) problems.push(`${at}: needs deposit or withdrawal terms`);
      return {
        platformId,
        platformAssetId: text_(`${at}.platform_asset_id`, t.platform_asset_id),
        deposit,
        withdrawal,
      };
    });
    if (defaultPlatform && !offered.some((o) => o.platformId === defaultPlatform)) {
      problems.push(`${where}.default_platform: ${defaultPlatform} is not one of its platforms`);
    }
    return { id, chainAssetId, decimals, defaultPlatform, platforms: offered };
  });
  const currencyIds = new Set(currencies.map((c) => c.id));
  if (currencyIds.size !== currencies.length) problems.push('currencies: ids must be unique');

  const staking: Catalogue['staking'] = list(root.staking).map((raw, i) => {
    const entry = isMap(raw) ? raw : {};
    const currency = text_(`staking[${i}].currency`, entry.currency);
    if (currency && !currencyIds.has(currency)) problems.push(`staking[${i}].currency: unknown currency ${currency}`);
    return { currency, apy: decimal(`staking[${i}] (${currency}).apy`, entry.apy, 8) };
  });

  if (problems.length > 0) throw new CatalogueError(problems);
  return { platforms, currencies, staking };
}
