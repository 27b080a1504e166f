/**
 * Set up before each server test file (vitest.config.ts's setupFiles): every app `buildApp` creates checks
 * its answers against the spec (answers.ts), and a test whose app sent an answer the spec does not allow
 * fails, naming the operation, the status and the violation.
 */
import { afterAll, afterEach } from 'vitest';
import { appCreated } from '../../src/test-hooks.js';
import { checkAnswers, describeViolation, takeViolations } from './answers.js';

if (!appCreated.includes(checkAnswers)) appCreated.push(checkAnswers);

function noViolations(): void {
  const found = takeViolations();
  if (found.length === 0) return;
  const lines = found.slice(0, 20).map(describeViolation);
  if (found.length > 20) lines.push(`… and ${found.length - 20} more`);
  throw new Error(`answers the spec does not allow:\n${lines.join('\n')}`);
}

// After each test, and once more after the file (answers sent in an afterAll or after the last test).
afterEach(noViolations);
afterAll(noViolations);
