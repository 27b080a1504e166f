/** Staking yields (public). */
import type { HandlerMap } from '@gateway/generated';
import type { Context } from '../context.js';
import { stakingYieldOf } from '../domain/staking.js';

export const stakingHandlers: Pick<HandlerMap<Context>, 'getStakingYield'> = {
  async getStakingYield({ params }, context) {
    return {
      status: 200,
      body: { type: 'apy', apy: stakingYieldOf(await context.catalogue.get(), params.currency_id) },
    };
  },
};
