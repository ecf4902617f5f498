import * as m0001 from './0001-initial.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration, in order. Versions are contiguous from 1; migrations only ever move forward. */
export const migrations: readonly Migration[] = [{ version: 1, ...m0001 }];

export const latestVersion = migrations.length;
