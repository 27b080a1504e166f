/** The handler of every operation of the spec: adding an operation to the spec breaks this until it has one. */
import type { HandlerMap } from '@gateway/generated';
import type { Context } from '../context.js';
import { accountHandlers } from './account.js';
import { operationsHandlers } from './operations.js';
import { publicHandlers } from './public.js';
import { termsHandlers } from './terms.js';
import { tokenHandlers } from './token.js';

export const handlers = {
  ...tokenHandlers,
  ...termsHandlers,
  ...accountHandlers,
  ...publicHandlers,
  ...operationsHandlers,
} satisfies HandlerMap<Context>;
