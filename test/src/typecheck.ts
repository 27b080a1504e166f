/**
 * The TypeScript compiler in process, for the suites that compile code against generated types (codegen,
 * generators). Each program would parse TypeScript's own `lib.*.d.ts` (lib.dom.d.ts alone is 1.5 MB) and the
 * packages' declarations again: about 2 s of a core a program. The files that do not change during a run
 * (TypeScript's libraries and everything under node_modules) are parsed once per worker and shared between
 * programs, as TypeScript's language service shares them between its programs; a program then takes 0.1 to 0.3
 * s. The code under test (fixtures, generated folders) is read afresh every time.
 */
import path from 'node:path';
import ts from 'typescript';

const LIB_DIR = path.dirname(ts.getDefaultLibFilePath({}));
const shared = new Map<string, ts.SourceFile | undefined>();

const unchanging = (file: string) => file.startsWith(LIB_DIR) || file.includes(`${path.sep}node_modules${path.sep}`);

/** A compiler host for `options` whose unchanging source files are parsed once and shared. */
function hostOf(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, fresh) => {
    if (!unchanging(file)) return read(file, language, onError, fresh);
    // The parse depends on the language version and, for modules, on the file's module format.
    const key = `${file}\0${JSON.stringify(language)}`;
    if (!shared.has(key)) shared.set(key, read(file, language, onError, fresh));
    return shared.get(key);
  };
  return host;
}

/** The diagnostics of a program of `files` compiled with `options` (nothing is written). */
export function diagnosticsOf(files: string[], options: ts.CompilerOptions): readonly ts.Diagnostic[] {
  const program = ts.createProgram(files, { ...options, noEmit: true }, hostOf(options));
  return ts.getPreEmitDiagnostics(program);
}
