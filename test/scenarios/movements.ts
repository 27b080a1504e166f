import { prefer, type Scenario } from '../src/scenario.js';

export const movementScenarios: Scenario[] = [
  {
    name: 'movements of the signed-in account, first page',
    operationId: 'listMovements',
    request: { path: '/v1/movements', auth: 'token' },
    expect: { status: 200 },
  },
  {
    name: 'movements with a page size of 1',
    operationId: 'listMovements',
    request: { path: '/v1/movements', query: { limit: '1' }, auth: 'token' },
    expect: { status: 200 },
  },
  {
    name: 'movements without a token: 401',
    operationId: 'listMovements',
    request: { path: '/v1/movements' },
    expect: { status: 401, code: 10000, headers: { 'www-authenticate': /^Bearer/ } },
  },
  {
    name: 'movements with limit 101: 400',
    operationId: 'listMovements',
    request: { path: '/v1/movements', query: { limit: '101' }, auth: 'token' },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'movements with a cursor that is not base64url: 400',
    operationId: 'listMovements',
    request: { path: '/v1/movements', query: { after: 'not a cursor!' }, auth: 'token' },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'movements with a well-formed but forged cursor: 400',
    operationId: 'listMovements',
    request: { path: '/v1/movements', query: { after: 'eyJrIjpbIjIwMjEiXX0' }, auth: 'token', headers: prefer(400) },
    expect: { status: 400, code: 10206 },
  },
  {
    name: 'one movement of the signed-in account',
    operationId: 'getMovement',
    request: async (ctx) => ({ path: `/v1/movements/${await ctx.movementId()}`, auth: 'token' }),
    expect: { status: 200 },
  },
  {
    name: 'a movement that does not exist: 404',
    operationId: 'getMovement',
    request: { path: '/v1/movements/00000000-0000-0000-0000-000000000000', auth: 'token', headers: prefer(404) },
    expect: { status: 404, code: 10404 },
  },
  {
    name: 'a movement without a token: 401',
    operationId: 'getMovement',
    request: { path: '/v1/movements/0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f' },
    expect: { status: 401, code: 10000 },
  },
];
