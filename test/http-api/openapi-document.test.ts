import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type RunningApi, serveApi } from '../../src/http-api/index.js';
import { openApiDocument } from '../../src/http-api/openapi/document.js';
import { silentLogger, Tidemark } from '../../src/index.js';
import { CheckedApiClient } from '../support/openapi-client.js';

const CHECKED_IN = 'docs/openapi.json';

// biome-ignore lint/suspicious/noExplicitAny: a JSON document, read and edited by key
type Doc = Record<string, any>;
const SECRET = 'reader-secret-0123456789';

let tm: Tidemark;
let api: RunningApi;
before(async () => {
  tm = await Tidemark.open({ database: 'memory://', logger: silentLogger });
  tm.createQueue({ name: 'q' });
  api = await serveApi(tm, { port: 0, tokens: { reader: { secret: SECRET, scopes: ['read'] } } });
});
after(async () => {
  await api.close();
  await tm.close();
});

test('docs/openapi.json is the document the API serves (TIDEMARK_UPDATE_SNAPSHOTS=1 rewrites it; then format it)', async () => {
  const served = await (await fetch(`${api.url}api/v1/openapi.json`)).json();
  assert.deepEqual(served, openApiDocument());
  // Compared as JSON: the file is laid out as the formatter lays out JSON (npx biome check --write).
  if (process.env.TIDEMARK_UPDATE_SNAPSHOTS === '1')
    writeFileSync(CHECKED_IN, `${JSON.stringify(served, null, 2)}\n`);
  assert.deepEqual(JSON.parse(readFileSync(CHECKED_IN, 'utf8')), served);
});

test('it is OpenAPI 3.1 whose every schema compiles as JSON Schema 2020-12 and every $ref resolves', () => {
  const document = openApiDocument() as Doc;
  assert.equal(document.openapi, '3.1.0');
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema(document, 'openapi.json');
  for (const name of Object.keys(document.components.schemas)) {
    assert.doesNotThrow(() => ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` }), name);
  }
  const ids = Object.values(
    document.paths as Record<string, Record<string, { operationId: string }>>,
  ).flatMap((item) => Object.values(item).map((op) => op.operationId));
  assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
});

test('the checking client fails a call the document does not state: an answer field, a status, a parameter', async () => {
  const { id } = await tm.addJob({ queue: 'q' });
  const drifted = openApiDocument() as Doc;
  delete drifted.components.schemas.Job.properties.tags;
  delete drifted.paths['/jobs/{id}'].get.responses['404'];
  drifted.paths['/jobs'].get.parameters = [];
  const client = new CheckedApiClient(api.url, drifted);
  await assert.rejects(client.call({ path: `/jobs/${id}`, token: SECRET }), /matches the document/);
  await assert.rejects(client.call({ path: '/jobs/999999', token: SECRET }), /documents the status 404/);
  await assert.rejects(client.call({ path: '/jobs?queue=q', token: SECRET }), /query parameter queue/);
  const faithful = new CheckedApiClient(api.url);
  assert.equal((await faithful.call({ path: `/jobs/${id}`, token: SECRET })).status, 200);
});
