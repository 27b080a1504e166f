/** Identifier patterns, read from the spec (never restated by hand). */
import { createRequire } from 'node:module';

interface SpecSchemas {
  components: { schemas: Record<string, { pattern?: string }> };
}
const spec = createRequire(import.meta.url)('@gateway/generated/openapi.json') as SpecSchemas;

function patternOf(schema: string): RegExp {
  const pattern = spec.components.schemas[schema]?.pattern;
  if (!pattern) throw new Error(`the spec's ${schema} schema has no pattern`);
  return new RegExp(pattern);
}

export const idPatterns = {
  currency: patternOf('CurrencyId'),
  platform: patternOf('PlatformId'),
  ledgerAddress: patternOf('LedgerAddress'),
  movementId: new RegExp(
    (spec.components.schemas.Movement as { properties?: Record<string, { pattern?: string }> }).properties?.id
      ?.pattern ?? '^$',
  ),
};
