/**
 * The catalogue an operator loads (`gateway catalogue load FILE`): platforms, currencies with their
 * per-platform deposit and withdrawal terms, and staking yields. YAML or JSON; every scalar is read as text
 * so amounts stay exact. Its shape is the spec's Catalogue schema; the rules across its entries, which a
 * schema cannot state, are checked here once the shape is right. Errors name the entry and the field.
 */
import type { RecordTypes } from '@gateway/generated';
import { parse } from 'yaml';
import { compareDecimal, type DecimalText } from '../lib/decimal.js';
import type { Catalogue, TermsEntry } from '../store/catalogue.js';
import { isLedgerPlatform, parseExtendedPublicKey } from './addresses.js';
import type { RecordPath } from './record-problems.js';
import { checkRecord, type Problems, readDecimal } from './records.js';

export class CatalogueError extends Error {
  constructor(readonly problems: string[]) {
    super(`the catalogue is invalid:\n  ${problems.join('\n  ')}`);
  }
}

const ZERO = '0' as DecimalText;
const ONE = '1' as DecimalText;

/** Parses and validates a catalogue; throws CatalogueError listing every problem. */
export function parseCatalogue(text: string): Catalogue {
  let file: unknown;
  try {
    file = parse(text, { schema: 'failsafe' });
  } catch (error) {
    // The parser's first line names the place ("… at line 3, column 1:"); the code frame after it is not kept.
    throw new CatalogueError([`not YAML or JSON: ${(error as Error).message.split('\n')[0]?.replace(/:$/, '')}`]);
  }
  const problems = checkRecord('Catalogue', file);
  if (problems.any) throw new CatalogueError(problems.lines());
  const catalogue = checkEntries(file as RecordTypes['Catalogue'], problems);
  if (problems.any) throw new CatalogueError(problems.lines());
  return catalogue;
}

function checkEntries(file: RecordTypes['Catalogue'], problems: Problems): Catalogue {
  const platforms = file.platforms.map((platform, i) => checkPlatform(platform, ['platforms', i], problems));
  const platformIds = new Set(platforms.map((p) => p.id));
  if (platformIds.size !== platforms.length) problems.add(['platforms'], 'ids must be unique');
  const ledgerPlatforms = new Set(
    platforms.filter((p) => isLedgerPlatform({ address_kind: p.addressKind })).map((p) => p.id),
  );

  const currencies = file.currencies.map((currency, i) => {
    const decimals = Number(currency.decimals);
    const offered = Object.entries(currency.platforms).map(([platformId, offer]) => {
      const at = ['currencies', i, 'platforms', platformId];
      if (!platformIds.has(platformId)) problems.add(at, `unknown platform ${platformId}`);
      if (!offer.deposit && !offer.withdrawal) problems.add(at, 'needs deposit or withdrawal terms');
      const onLedger = ledgerPlatforms.has(platformId);
      const terms = (direction: 'deposit' | 'withdrawal') => {
        const given = offer[direction];
        return given && checkTerms(given, [...at, direction], decimals, onLedger, problems);
      };
      return {
        platformId,
        platformAssetId: offer.platform_asset_id,
        deposit: terms('deposit'),
        withdrawal: terms('withdrawal'),
      };
    });
    if (!offered.some((o) => o.platformId === currency.default_platform)) {
      problems.add(['currencies', i, 'default_platform'], `${currency.default_platform} is not one of its platforms`);
    }
    return {
      id: currency.id,
      chainAssetId: currency.chain_asset_id,
      decimals,
      defaultPlatform: currency.default_platform,
      platforms: offered,
    };
  });
  const currencyIds = new Set(currencies.map((c) => c.id));
  if (currencyIds.size !== currencies.length) problems.add(['currencies'], 'ids must be unique');

  const staking = (file.staking ?? []).map((entry, i) => {
    if (!currencyIds.has(entry.currency))
      problems.add(['staking', i, 'currency'], `unknown currency ${entry.currency}`);
    return { currency: entry.currency, apy: readDecimal(problems, ['staking', i, 'apy'], entry.apy, 8) };
  });
  return { platforms, currencies, staking };
}

/** How a platform's kind bounds its other fields: xpub for derived addresses, a network for bitcoin only. */
function checkPlatform(platform: RecordTypes['CataloguePlatform'], at: RecordPath, problems: Problems) {
  const kind = platform.address_kind;
  if (kind === 'bitcoin' && platform.network === undefined) {
    problems.add([...at, 'network'], 'must be mainnet or testnet for a bitcoin platform');
  }
  if (kind !== 'bitcoin' && platform.network !== undefined) {
    problems.add([...at, 'network'], 'only a bitcoin platform has a network');
  }
  if (isLedgerPlatform(platform)) {
    if (platform.xpub !== undefined) {
      problems.add(
        [...at, 'xpub'],
        "must not be given for a ledger platform (its deposit address is the account's own)",
      );
    }
  } else if (!platform.xpub) {
    // Deposit addresses of these platforms are derived from the extended public key.
    problems.add([...at, 'xpub'], `is required for a platform of kind ${kind}`);
  } else {
    try {
      parseExtendedPublicKey(platform.xpub);
    } catch (error) {
      problems.add([...at, 'xpub'], `not an extended public key (${(error as Error).message})`);
    }
  }
  return {
    id: platform.id,
    name: platform.name,
    addressKind: kind,
    xpub: platform.xpub ?? '',
    network: platform.network ?? null,
  };
}

function checkTerms(
  terms: RecordTypes['CatalogueTerms'],
  at: RecordPath,
  decimals: number,
  onLedger: boolean,
  problems: Problems,
): TermsEntry {
  const min = readDecimal(problems, [...at, 'min'], terms.min, decimals);
  const max = readDecimal(problems, [...at, 'max'], terms.max, decimals);
  if (compareDecimal(min, max) > 0) problems.add(at, `min ${min} is above max ${max}`);
  const feeFlat = readDecimal(problems, [...at, 'fee_flat'], terms.fee_flat, decimals);
  const feeRate = readDecimal(problems, [...at, 'fee_rate'], terms.fee_rate, 18);
  if (compareDecimal(feeRate, ONE) > 0) problems.add([...at, 'fee_rate'], 'must be at most 1');
  // On the ledger's own platform the transfer goes straight to its recipient: nothing can take a fee.
  for (const [field, value] of [
    ['fee_flat', feeFlat],
    ['fee_rate', feeRate],
  ] as const) {
    if (onLedger && compareDecimal(value, ZERO) !== 0) {
      problems.add([...at, field], 'must be 0 on a ledger platform (transfers there go straight to the recipient)');
    }
  }
  return { status: terms.status, min, max, feeFlat, feeRate };
}
