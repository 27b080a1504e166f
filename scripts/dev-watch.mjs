// The file watching of `npm run dev` (scripts/dev.mjs): one watcher per folder, none per file.
import { readdirSync, statSync, watch } from 'node:fs';
import path from 'node:path';

/**
 * Calls `onChange(file)` (relative to `root`) for every change under `root`, in folders made later too. Each
 * folder is watched, not each file, so that a file replaced by a rename (an editor's atomic save, `sed -i`)
 * stays watched: Node 20's `fs.watch(…, { recursive: true })` on Linux (emulated, a watcher per file) loses such
 * a file after its first replacement (tried on Node 20.20), and a watcher package is not needed for the rest.
 */
export function watchTree(root, onChange) {
  const watchers = new Map();
  const forget = (folder) => {
    watchers.get(folder)?.close();
    watchers.delete(folder);
  };
  const add = (folder) => {
    if (watchers.has(folder)) return;
    let watcher;
    try {
      watcher = watch(folder, (event, name) => {
        const file = name ? path.join(folder, name.toString()) : folder;
        if (event === 'rename') {
          let isFolder = false;
          try {
            isFolder = statSync(file).isDirectory();
          } catch {}
          if (isFolder) addTree(file);
          else forget(file); // a folder removed, or a file (no watcher: nothing to do)
        }
        onChange(path.relative(root, file));
      });
    } catch {
      return; // gone already
    }
    watcher.on('error', () => forget(folder));
    watchers.set(folder, watcher);
  };
  const addTree = (folder) => {
    add(folder);
    let entries = [];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {}
    for (const entry of entries) if (entry.isDirectory()) addTree(path.join(folder, entry.name));
  };
  addTree(root);
  return { close: () => [...watchers.keys()].forEach(forget) };
}
