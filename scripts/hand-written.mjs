// Files of generated/ written by hand beside the generator's output (the types its data is checked against):
// the generator copies them along when it writes elsewhere, so that its output compiles alone, and
// check-generated never compares them.
export const HAND_WRITTEN = ['src/handler-types.ts'];
