/** Reading a bundled OpenAPI document: what the generator and the compatibility check both need. */

/** The methods a path item may hold an operation under. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The node of `doc` at a JSON pointer's `segments` (`~1` and `~0` unescaped), or undefined. */
export function pointer(doc, segments) {
  let node = doc;
  for (const raw of segments) {
    if (node == null || typeof node !== 'object') return undefined;
    node = node[String(raw).replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

/**
 * `node`, its local `$ref`s (`#/…`) followed to what they name: undefined when one names nothing, the last
 * `$ref` node itself when it is not local or the chain runs past 20 (a loop).
 */
export function resolveRef(doc, node) {
  let seen = 0;
  while (node && typeof node === 'object' && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    if (seen++ === 20) break;
    node = pointer(doc, node.$ref.slice(2).split('/'));
  }
  return node;
}
