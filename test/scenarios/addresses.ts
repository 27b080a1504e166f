import { prefer, type Scenario } from '../src/scenario.js';

const deprecation = { deprecation: /^@\d+$/, link: /rel="successor-version"/ };
const evmDestination = '0x3f2b1c25A5f23b193560B97988ee98cBDb480730';

export const addressScenarios: Scenario[] = [
  {
    name: 'deposit address of USDT on ETH for the signed-in account',
    operationId: 'getDepositAddresses',
    request: { path: '/v1/deposit/addresses/USDT/ETH', auth: 'token' },
    expect: { status: 200 },
  },
  {
    name: 'deposit address without a token: 401',
    operationId: 'getDepositAddresses',
    request: { path: '/v1/deposit/addresses/USDT/ETH' },
    expect: { status: 401, code: 10000, headers: { 'www-authenticate': /^Bearer/ } },
  },
  {
    name: 'deposit address with an invalid token: 401',
    operationId: 'getDepositAddresses',
    request: { path: '/v1/deposit/addresses/USDT/ETH', auth: 'bad-token' },
    expect: { status: 401, code: 10000 },
    only: 'server',
  },
  {
    name: 'deposit address of an inactive deposit: 403, never an address',
    operationId: 'getDepositAddresses',
    request: { path: '/v1/deposit/addresses/USDC/ETH', auth: 'token', headers: prefer(403) },
    expect: { status: 403, code: 10101 },
  },
  {
    name: 'deposit address of an unknown currency: 404',
    operationId: 'getDepositAddresses',
    request: { path: '/v1/deposit/addresses/NOPE/ETH', auth: 'token', headers: prefer(404) },
    expect: { status: 404, code: 10401 },
  },
  {
    name: 'deposit address on the default platform (deprecated) carries Deprecation and Link',
    operationId: 'getDepositAddressesOnDefaultPlatform',
    request: { path: '/v1/deposit/addresses/BTC', auth: 'token' },
    expect: { status: 200, headers: deprecation },
  },
  {
    name: 'deposit address on the default platform without a token: 401',
    operationId: 'getDepositAddressesOnDefaultPlatform',
    request: { path: '/v1/deposit/addresses/BTC' },
    expect: { status: 401, code: 10000 },
  },
  {
    name: 'withdrawal proxy address of USDT to an Ethereum address',
    operationId: 'getWithdrawalAddresses',
    request: { path: `/v1/withdraw/addresses/USDT/${evmDestination}/ETH`, auth: 'token' },
    expect: { status: 200 },
  },
  {
    name: 'withdrawal address without a token: 401',
    operationId: 'getWithdrawalAddresses',
    request: { path: `/v1/withdraw/addresses/USDT/${evmDestination}/ETH` },
    expect: { status: 401, code: 10000 },
  },
  {
    name: 'withdrawal to a destination with characters no address has: 400',
    operationId: 'getWithdrawalAddresses',
    request: { path: '/v1/withdraw/addresses/USDT/0x3f2b%2B1c25/ETH', auth: 'token' },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'withdrawal to an address that is not valid on the platform: 400',
    operationId: 'getWithdrawalAddresses',
    request: { path: '/v1/withdraw/addresses/USDT/0x3f2b1c25/ETH', auth: 'token', headers: prefer(400) },
    expect: { status: 400, code: 10207 },
  },
  {
    name: 'withdrawal to a mixed-case EVM address that is not its EIP-55 checksum: 400',
    operationId: 'getWithdrawalAddresses',
    request: {
      path: '/v1/withdraw/addresses/USDT/0x3f2b1c25a5F23b193560B97988ee98cBDb480730/ETH',
      auth: 'token',
      headers: prefer(400),
    },
    expect: { status: 400, code: 10207 },
  },
  {
    name: 'withdrawal to an EVM address in lowercase: the same proxy as its checksummed form',
    operationId: 'getWithdrawalAddresses',
    request: { path: `/v1/withdraw/addresses/USDT/${evmDestination.toLowerCase()}/ETH`, auth: 'token' },
    expect: { status: 200 },
  },
  {
    name: "withdrawal address past the account's limit of proxies: 403 (the mock's example)",
    operationId: 'getWithdrawalAddresses',
    request: {
      path: `/v1/withdraw/addresses/USDT/${evmDestination}/ETH`,
      auth: 'token',
      headers: { Prefer: 'code=403, example=withdrawalAddressLimit' },
    },
    expect: { status: 403 },
    only: 'mock',
  },
  {
    name: "too many new withdrawal addresses this minute: 429 with Retry-After (the mock's example)",
    operationId: 'getWithdrawalAddresses',
    request: {
      path: `/v1/withdraw/addresses/USDT/${evmDestination}/ETH`,
      auth: 'token',
      headers: { Prefer: 'code=429, example=newWithdrawalAddresses' },
    },
    expect: { status: 429, headers: { 'retry-after': /^\d+$/ } },
    only: 'mock',
  },
  {
    name: 'withdrawal on an unknown platform: 404',
    operationId: 'getWithdrawalAddresses',
    request: { path: `/v1/withdraw/addresses/USDT/${evmDestination}/SOL`, auth: 'token', headers: prefer(404) },
    expect: { status: 404, code: 10402 },
  },
  {
    name: 'withdrawal address on the default platform (deprecated, used by deployed clients)',
    operationId: 'getWithdrawalAddressesOnDefaultPlatform',
    request: { path: `/v1/withdraw/addresses/USDT/${evmDestination}`, auth: 'token' },
    expect: { status: 200, headers: deprecation },
  },
  {
    name: 'withdrawal address on the default platform without a token: 401',
    operationId: 'getWithdrawalAddressesOnDefaultPlatform',
    request: { path: `/v1/withdraw/addresses/USDT/${evmDestination}` },
    expect: { status: 401, code: 10000 },
  },
];
