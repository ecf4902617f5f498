import { hostname } from 'node:os';

/** `host:pid`: who paused retention or placed a hold, for the operator who reads it later. */
export function processName(): string {
  return `${hostname()}:${process.pid}`;
}
