import type { Logger } from './logger.js';

/**
 * Records logged at most once per key for the life of an engine: notes about a policy or
 * an option that a loop or a busy producer would otherwise repeat on every call.
 */
export class OnceLogger {
  private readonly seen = new Set<string>();
  private readonly seenObjects = new WeakSet<object>();

  constructor(private readonly logger: Logger) {}

  warn(key: string, message: string, fields?: Record<string, unknown>): void {
    if (this.first(`warn\u0000${key}`)) this.logger.warn(message, fields);
  }

  info(key: string, message: string, fields?: Record<string, unknown>): void {
    if (this.first(`info\u0000${key}`)) this.logger.info(message, fields);
  }

  /**
   * True the first time this object is passed: a caller that notes many records sharing
   * one options object (a bulk add) looks at it once.
   */
  firstSight(value: object): boolean {
    if (this.seenObjects.has(value)) return false;
    this.seenObjects.add(value);
    return true;
  }

  private first(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
}
