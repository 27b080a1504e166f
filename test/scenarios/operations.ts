import { prefer, type Scenario } from '../src/scenario.js';

export const operationsScenarios: Scenario[] = [
  { name: 'liveness', operationId: 'getLiveness', request: { path: '/health/live' }, expect: { status: 200 } },
  {
    name: 'liveness does not take POST',
    operationId: 'getLiveness',
    request: { method: 'POST', path: '/health/live' },
    expect: { status: 405, code: 10700 },
    only: 'server',
  },
  {
    name: 'readiness with the database up',
    operationId: 'getReadiness',
    request: { path: '/health/ready' },
    expect: { status: 200 },
  },
  {
    name: 'readiness with the database down: 503',
    operationId: 'getReadiness',
    request: { path: '/health/ready', headers: prefer(503) },
    expect: { status: 503, code: 11200 },
    only: 'mock',
  },
  {
    name: 'serving state with everything up',
    operationId: 'getServingState',
    request: { path: '/health/serving' },
    expect: { status: 200 },
  },
  {
    name: 'serving state when nothing can be served: 503',
    operationId: 'getServingState',
    request: { path: '/health/serving', headers: prefer(503) },
    expect: { status: 503, code: 11200 },
    only: 'mock',
  },
  {
    name: 'metrics in the Prometheus text format',
    operationId: 'getMetrics',
    request: { path: '/metrics', headers: { Accept: 'text/plain' } },
    expect: { status: 200, headers: { 'content-type': /^text\/plain/ } },
  },
  {
    name: 'metrics asked for as JSON only: 406',
    operationId: 'getMetrics',
    request: { path: '/metrics', headers: { Accept: 'application/json' } },
    expect: { status: 406, code: 10900 },
    only: 'server',
  },
];
