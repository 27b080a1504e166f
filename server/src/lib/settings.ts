/**
 * A setting of the configuration read from its text in the environment: described with JSON Schema's words
 * (`type`, `minimum`, `maximum`, `minLength`, `pattern`, `enum`, `default`, and `separator` for a list), which
 * config.ts's table of every key uses, and checked here in a few lines, where a JSON Schema validator compiled
 * the table at every start of every command.
 */

/** What an entry of config.ts's `settings` may say. */
export interface Setting {
  type: 'string' | 'integer';
  default: string | number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  enum?: readonly string[];
  separator?: string;
}

const patterns = new Map<string, RegExp>();

/**
 * A setting's value from its text (its default when unset), or what is wrong with it, said of `name` and never
 * quoting the text (some settings are secrets). An integer is decimal digits, a list's items are split at its
 * separator (an empty text is an empty list).
 */
export function readSetting(
  name: string,
  setting: Setting,
  text: string | undefined,
): { value: unknown } | { problem: string } {
  const given = text ?? String(setting.default);
  if (setting.type === 'integer') {
    const digits = given.trim();
    if (!/^[+-]?\d+$/.test(digits)) return { problem: `${name} must be an integer` };
    const value = Number(digits);
    if (setting.minimum !== undefined && value < setting.minimum) {
      return { problem: `${name} must be at least ${setting.minimum}` };
    }
    if (setting.maximum !== undefined && value > setting.maximum) {
      return { problem: `${name} must be at most ${setting.maximum}` };
    }
    return { value };
  }
  if (setting.minLength !== undefined && given.length < setting.minLength) {
    return {
      problem:
        setting.minLength === 1
          ? `${name} must not be empty`
          : `${name} must be at least ${setting.minLength} characters`,
    };
  }
  if (setting.enum && !setting.enum.includes(given)) {
    return { problem: `${name} must be one of ${setting.enum.join(', ')}` };
  }
  if (setting.pattern !== undefined) {
    let pattern = patterns.get(setting.pattern);
    if (!pattern) {
      pattern = new RegExp(setting.pattern, 'u');
      patterns.set(setting.pattern, pattern);
    }
    if (!pattern.test(given)) return { problem: `${name} must match ${setting.pattern}` };
  }
  if (setting.separator !== undefined) return { value: given === '' ? [] : given.split(setting.separator) };
  return { value: given };
}
