/**
 * Test-only: functions called with each app `buildApp` creates, before any plugin is installed. The server's
 * tests install their response checker here (test/support/answers.ts); in production the list is empty, so
 * it costs one loop over nothing per app built.
 */
import type { FastifyInstance } from 'fastify';

export const appCreated: Array<(app: FastifyInstance) => void> = [];
