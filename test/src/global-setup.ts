/** Starts one Prism mock for the whole run and hands its address to the tests. */
import type { TestProject } from 'vitest/node';
import { startPrism } from './prism.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mockUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const mock = await startPrism({ kind: 'mock' });
  project.provide('mockUrl', mock.url);
  return () => mock.stop();
}
