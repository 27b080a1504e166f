/** The catalogue's shape is the spec's Catalogue schema; the rules across its entries are checked after it. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../src/domain/catalogue.js';
import { demoFiles } from '../../src/operator/commands.js';

const demo = readFileSync(demoFiles.catalogue, 'utf8');
const problemsOf = (text: string): string[] => {
  try {
    parseCatalogue(text);
    return [];
  } catch (error) {
    return (error as { problems: string[] }).problems;
  }
};

describe('the catalogue', () => {
  it('reads the demo catalogue, amounts as exact text and fees defaulting to 0', () => {
    const catalogue = parseCatalogue(demo.replace(", fee_flat: '0', fee_rate: '0' }", ' }'));
    expect(catalogue.currencies[0]?.platforms[0]?.deposit).toEqual({
      status: 'active',
      min: '0.01',
      max: '5000',
      feeFlat: '0',
      feeRate: '0',
    });
  });

  it('names the entry and the field of what its schema refuses', () => {
    const text = demo
      .replace('address_kind: bitcoin', 'address_kind: lightning')
      .replace('decimals: 8', 'decimals: 19')
      .replace("deposit: { status: active, min: '0.01'", "deposit: { status: paused, min: '0.01'");
    expect(problemsOf(text)).toEqual([
      'platforms[1] (BTC).address_kind: must be one of evm, bitcoin, ledger',
      'currencies[0] (BNB).decimals: "19" does not match ^(?:0?[0-9]|1[0-8])$',
      'currencies[0] (BNB).platforms.BSC.deposit.status: must be one of active, inactive',
    ]);
    expect(problemsOf('- a list')).toEqual(['must be a mapping']);
  });

  it("names a key of a currency's platforms that is no platform id, without repeating all of it", () => {
    const key = `L${'x'.repeat(200)}`;
    const text = demo.replace(/(default_platform: BTC\n\s+platforms:\n\s+)BTC:/, `$1${key}:`);
    expect(problemsOf(text)).toEqual([
      `currencies[1] (BTC).platforms: key "${key.slice(0, 80)}" is not allowed (it must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$)`,
    ]);
  });

  it('checks the rules across entries once the shape is right', () => {
    const text = demo
      .replace("min: '0.01', max: '5000'", "min: '6000', max: '5000'")
      .replace(/(default_platform: BTC\n\s+platforms:\n\s+)BTC:/, '$1LN:')
      .replace('currency: WAVES, apy', 'currency: DOGE, apy');
    expect(problemsOf(text)).toEqual([
      'currencies[0] (BNB).platforms.BSC.deposit: min 6000 is above max 5000',
      'currencies[1] (BTC).platforms.LN: unknown platform LN',
      'currencies[1] (BTC).default_platform: BTC is not one of its platforms',
      'staking[0].currency: unknown currency DOGE',
    ]);
    const withoutTerms = demo.replace(/(platform_asset_id: BNB)\n(\s+(deposit|withdrawal): .*\n){2}/, '$1\n');
    expect(problemsOf(withoutTerms)).toEqual(['currencies[0] (BNB).platforms.BSC: needs deposit or withdrawal terms']);
  });
});
