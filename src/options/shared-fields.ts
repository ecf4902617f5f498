import { InvalidOptionError } from '../errors.js';
import { FINISHED_STATUSES } from '../job-status.js';
import { type FrozenRetention, WINDOW_KEYS } from '../model/job.js';
import { freezeRetention, type RetentionPolicy } from '../model/retention-policy.js';
import { checkBatchSize, DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE } from './batch-size.js';
import { checkDate, checkId } from './check.js';
import { custom, either, type FieldDoc, grouped, literal, STORABLE_TEXT, text } from './fields.js';
import { toJsonText } from './json.js';

/** A retention option once checked: the policy as given (for the notes on it) and its windows. */
export interface CheckedPolicy {
  policy: RetentionPolicy | false;
  windows: FrozenRetention;
}

const WINDOW = { type: 'integer', minimum: 0, maximum: 3_200_000_000 };

/** A retention policy in JSON Schema: `false`, `{ ttlSeconds, statuses? }`, or per-status windows. */
const RETENTION_SCHEMA = {
  anyOf: [
    { const: false },
    {
      type: 'object',
      additionalProperties: false,
      required: ['ttlSeconds'],
      properties: {
        ttlSeconds: WINDOW,
        statuses: { type: 'array', items: { enum: [...FINISHED_STATUSES] } },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(WINDOW_KEYS.map((key) => [key, WINDOW])),
    },
  ],
};

/** `retention` wherever it is set (engine, queue, job, child): checked and frozen into windows. */
export function retentionField(doc: FieldDoc & { docDefault: string }) {
  return custom<RetentionPolicy | false, CheckedPolicy>({
    ...doc,
    expected: 'a retention policy object or false',
    docType: '`RetentionPolicy \\| false`',
    jsonSchema: RETENTION_SCHEMA,
    check: (value, field) => ({
      policy: value as RetentionPolicy | false,
      windows: freezeRetention(value, field),
    }),
  });
}

/** A JSON payload (a job's or a schedule's data), kept as the JSON text the database stores. */
export function jsonDataField(doc: FieldDoc) {
  const field = custom<unknown, string, string>({
    ...doc,
    expected: 'JSON data',
    docType: 'JSON',
    docDefault: '`null`',
    default: 'null',
    check: (value, name) => toJsonText(value, name),
  });
  // toJsonText reads the payload once, guarding each read; a copy first would walk it twice.
  Object.assign(field, { opaque: true });
  return field;
}

/** A moment: a Date, or an ISO 8601 string, in the years 1 to 9999. */
export function dateField(doc: FieldDoc & { docDefault: string }) {
  return custom<Date | string, Date>({
    ...doc,
    expected: 'a Date or an ISO 8601 string, in the years 1 to 9999',
    docType: '`Date \\| string` (ISO 8601)',
    jsonSchema: { type: 'string', format: 'date-time' },
    check: (value, field) => checkDate(value, field),
  });
}

/** A function the caller passes (a handler, a hook): `expected` says which, in an error. */
export function functionField<F>(doc: FieldDoc & { expected: string; docType: string }) {
  return custom<F>({
    ...doc,
    check: (value, field) => {
      if (typeof value !== 'function') throw new InvalidOptionError(field, doc.expected, value);
      return value as F;
    },
  });
}

/** A batch size: a whole number from 1, clamped to MAX_BATCH_SIZE with one warning. */
export function batchSizeField(description: string, fallback: number = DEFAULT_BATCH_SIZE) {
  return custom<number, number, number>({
    expected: `a whole number from 1 to ${MAX_BATCH_SIZE} (larger values are clamped to ${MAX_BATCH_SIZE})`,
    docType: `\`number\` (whole, 1 to ${grouped(MAX_BATCH_SIZE)}; larger values are clamped with one warning)`,
    default: fallback,
    description,
    jsonSchema: { type: 'integer', minimum: 1, default: fallback },
    check: (value, field, warnings) => {
      const { batchSize, warning } = checkBatchSize(value, field);
      if (warning) warnings.push(warning);
      return batchSize;
    },
  });
}

const ID_SCHEMA = { type: 'string', pattern: '^[1-9][0-9]{0,18}$' };

/** Job ids: 1 to `max` of them, each named in its error (`ids[3]`), kept once each. */
export function idsField(max: number, description: string) {
  const expected = `an array of 1 to ${max} job ids`;
  return custom<(string | number)[], string[]>({
    expected,
    docType: `\`string[]\` (1 to ${grouped(max)} job ids)`,
    description,
    jsonSchema: { type: 'array', minItems: 1, maxItems: max, items: ID_SCHEMA },
    check: (value, field) => {
      if (!Array.isArray(value) || value.length === 0 || value.length > max) {
        throw new InvalidOptionError(field, expected, value);
      }
      return [...new Set(value.map((id, i) => checkId(id, `${field}[${i}]`)))];
    },
  });
}

/** An id bound of a walk (a job's, a log line's): an id, or '0' for before the first. */
export function idBoundField(doc: FieldDoc & { docDefault: string; what: string }) {
  const { what, ...rest } = doc;
  return custom<string | number, string>({
    ...rest,
    expected: what,
    docType: '`string`',
    jsonSchema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,18})$' },
    check: (value, field) => (value === '0' || value === 0 ? '0' : checkId(value, field, what)),
  });
}

/** The most tags a job carries, and the longest tag. */
export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 100;

/** A job's tags (and a filter's): 1 to 20 strings of 1 to 100 characters, each named in its error, kept once each. */
export function tagsField(description: string, column?: string) {
  const expected = `an array of 1 to ${MAX_TAGS} tags`;
  const tag = `a string of 1 to ${MAX_TAG_LENGTH} characters`;
  return custom<string[], string[]>({
    expected,
    docType: `\`string[]\` (1 to ${MAX_TAGS} tags of 1 to ${MAX_TAG_LENGTH} characters)`,
    description,
    column,
    jsonSchema: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_TAGS,
      items: { type: 'string', minLength: 1, maxLength: MAX_TAG_LENGTH, pattern: STORABLE_TEXT },
    },
    check: (value, field) => {
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_TAGS) {
        throw new InvalidOptionError(field, expected, value);
      }
      const storable = new RegExp(STORABLE_TEXT);
      value.forEach((item, i) => {
        if (
          typeof item !== 'string' ||
          item.length === 0 ||
          item.length > MAX_TAG_LENGTH ||
          !storable.test(item)
        ) {
          throw new InvalidOptionError(`${field}[${i}]`, tag, item);
        }
      });
      return [...new Set(value)];
    },
  });
}

/**
 * `actor` and `source`: who made an operator call and from where, recorded in the audit
 * (`tm.listAudit`). Spread into the option set of each call that changes jobs, retention or
 * controls and takes an options object.
 */
export const AUDIT_FIELDS = {
  actor: text(200, {
    description: "who acts, recorded in the audit (`tm.listAudit`); the source's name (`'api'`) unless given",
  }),
  source: either([literal('api'), literal('dashboard'), literal('cli')], {
    expected: "'api', 'dashboard' or 'cli'",
    docType: '`AuditSource`',
    docDefault: "`'api'`",
    description: 'where the call came from, recorded in the audit; the dashboard and the CLI set theirs',
  }),
};
