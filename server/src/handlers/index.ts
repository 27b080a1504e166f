/**
 * The handler of every operation of the spec, one file per resource file of `spec/paths`: adding an
 * operation to the spec breaks this until it has one.
 */
import type { HandlerMap } from '@gateway/generated';
import type { Context } from '../context.js';
import { depositHandlers } from './deposit.js';
import { eventsHandlers } from './events.js';
import { healthHandlers } from './health.js';
import { movementsHandlers } from './movements.js';
import { platformsHandlers } from './platforms.js';
import { stakingHandlers } from './staking.js';
import { tokenHandlers } from './token.js';
import { tradesHandlers } from './trades.js';
import { withdrawalHandlers } from './withdrawal.js';

export const handlers = {
  ...tokenHandlers,
  ...depositHandlers,
  ...withdrawalHandlers,
  ...movementsHandlers,
  ...eventsHandlers,
  ...platformsHandlers,
  ...tradesHandlers,
  ...stakingHandlers,
  ...healthHandlers,
} satisfies HandlerMap<Context>;
