// A vitest reporter, beside the default one in every workspace's config: the failed tests (and the errors of
// hooks, files and the run), one line each, appended to the file TEST_FAILURES_FILE names. `npm test`
// (scripts/test.mjs) names one and prints what it holds after every workspace's output, so the last lines of a
// long run (what CI shows of it) say which tests failed, whichever workspace's output they were in.
import { appendFileSync } from 'node:fs';

/** The first line of an error's message, with its cause's. */
function summary(error) {
  const line = (e) =>
    `${e?.name && !String(e.message).startsWith(e.name) ? `${e.name}: ` : ''}${String(e?.message ?? e).split('\n')[0]}`;
  return error?.cause ? `${line(error)} (cause: ${line(error.cause).replace(/^Caused by: /, '')})` : line(error);
}

export default class FailuresFile {
  onTestRunEnd(testModules, unhandledErrors) {
    const file = process.env.TEST_FAILURES_FILE;
    if (!file) return;
    const workspace = process.env.npm_package_name ?? process.cwd();
    const lines = [];
    const add = (where, errors) => {
      for (const error of errors) lines.push(`${workspace}: ${where}: ${summary(error)}`);
    };
    for (const module of testModules) {
      add(module.relativeModuleId, module.errors());
      for (const suite of module.children.allSuites())
        add(`${module.relativeModuleId} > ${suite.fullName}`, suite.errors());
      for (const test of module.children.allTests('failed')) {
        add(`${module.relativeModuleId} > ${test.fullName}`, test.result().errors ?? [{ message: 'failed' }]);
      }
    }
    add('outside any test', unhandledErrors);
    if (lines.length > 0) appendFileSync(file, `${lines.join('\n')}\n`);
  }
}
