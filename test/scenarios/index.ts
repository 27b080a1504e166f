import type { Scenario } from '../src/scenario.js';
import { addressScenarios } from './addresses.js';
import { eventScenarios } from './events.js';
import { movementScenarios } from './movements.js';
import { operationsScenarios } from './operations.js';
import { publicScenarios } from './public.js';
import { termsScenarioList } from './terms.js';
import { tokenScenarios } from './token.js';

/** Every contract scenario, one row each. */
export const scenarios: Scenario[] = [
  ...tokenScenarios,
  ...termsScenarioList,
  ...addressScenarios,
  ...movementScenarios,
  ...eventScenarios,
  ...publicScenarios,
  ...operationsScenarios,
];
