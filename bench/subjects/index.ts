import type { Subject } from '../support/subject.js';
import { bullmqSubject } from './bullmq.js';
import { graphileSubject } from './graphile.js';
import { pgBossSubject } from './pg-boss.js';
import { rawLoopSubject } from './raw-loop.js';
import { tidemarkSubject } from './tidemark.js';

/** Every subject, Tidemark first. */
export function allSubjects(): Subject[] {
  return [
    tidemarkSubject('pg'),
    graphileSubject(),
    graphileSubject(11),
    graphileSubject(500),
    pgBossSubject(),
    pgBossSubject(1000),
    bullmqSubject('redis'),
    bullmqSubject('pg'),
    tidemarkSubject('pglite'),
    rawLoopSubject(),
  ];
}

export function subjectByKey(key: string): Subject {
  const subject = allSubjects().find((s) => s.key === key);
  if (!subject) throw new Error(`unknown subject ${key}`);
  return subject;
}
