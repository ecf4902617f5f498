import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/http-api/openapi/document.js';

// biome-ignore lint/suspicious/noExplicitAny: a JSON document, read by key
type Doc = Record<string, any>;

/** One call as a test makes it. */
export interface ApiCall {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  /** Below `/api/v1`, with its query: `/jobs/12/result?wait=5`. */
  path: string;
  token?: string;
  /** A JSON body; checked against the document's request schema unless `invalid`. */
  json?: unknown;
  /** A body sent as given (malformed JSON, an oversized one): never checked. */
  raw?: string;
  headers?: Record<string, string>;
  /** The request breaks the document on purpose (a bad option, an unknown parameter): only its answer is checked. */
  invalid?: boolean;
  /** The local address to send from (127.0.0.0/8 is loopback). */
  from?: string;
}

export interface ApiReply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the body as JSON, read by the test
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A client that checks every call against the OpenAPI document: the path and method are
 * documented, a request body matches its schema, each query parameter is declared, and the
 * answer's status, media type and body are the ones documented. A route, status or field the
 * document does not state fails the test, so the document cannot drift from the API.
 */
export class CheckedApiClient {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  /** `METHOD template status` of every answer seen. */
  readonly seen = new Set<string>();

  constructor(
    private readonly base: string,
    readonly document: Doc = openApiDocument(),
  ) {
    this.ajv.addSchema(document as object, 'openapi.json');
  }

  async call(call: ApiCall): Promise<ApiReply> {
    const method = call.method ?? 'GET';
    const url = new URL(`${this.base}api/v1${call.path}`);
    const found = this.operation(method, new URL(call.path, 'http://api').pathname);
    if (!call.invalid) this.checkRequest(found, call, url);
    const reply = await send(url, method, call);
    this.checkReply(found, method, reply);
    return reply;
  }

  /** The documented template and operation of a path, or null for a route the document does not have. */
  private operation(method: string, path: string): { template: string; op: Doc | null } | null {
    for (const [template, item] of Object.entries(this.document.paths as Doc)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (pattern.test(path)) return { template, op: (item as Doc)[method.toLowerCase()] ?? null };
    }
    return null;
  }

  private checkRequest(found: { template: string; op: Doc | null } | null, call: ApiCall, url: URL): void {
    assert.ok(found?.op, `${call.method ?? 'GET'} ${url.pathname} is documented`);
    const { template, op } = found;
    const declared = new Set(
      ((op.parameters ?? []) as Doc[]).filter((p) => p.in === 'query').map((p) => p.name),
    );
    for (const name of url.searchParams.keys())
      assert.ok(declared.has(name), `query parameter ${name} of ${template} is documented`);
    if (call.json !== undefined) {
      const pointer = `#/paths/${pointerOf(template)}/${(call.method ?? 'GET').toLowerCase()}/requestBody/content/application~1json/schema`;
      this.assertValid(pointer, call.json, `the request body of ${template}`);
    }
  }

  private checkReply(
    found: { template: string; op: Doc | null } | null,
    method: string,
    reply: ApiReply,
  ): void {
    const type = String(reply.headers['content-type'] ?? '').split(';')[0];
    if (found === null || found.op === null) {
      // An undocumented route or method is answered with a problem only.
      assert.ok(
        [404, 405].includes(reply.status),
        `an undocumented call answers 404 or 405, not ${reply.status}`,
      );
      assert.equal(type, 'application/problem+json');
      this.assertValid('#/components/schemas/Problem', reply.body, 'the problem');
      return;
    }
    const { template, op } = found;
    const response = (op.responses as Doc)[String(reply.status)];
    assert.ok(
      response,
      `${method} ${template} documents the status ${reply.status} (body: ${JSON.stringify(reply.body)})`,
    );
    this.seen.add(`${method} ${template} ${reply.status}`);
    if (method === 'HEAD') return;
    assert.ok(response.content?.[type], `${method} ${template} ${reply.status} documents the type ${type}`);
    const pointer = `#/paths/${pointerOf(template)}/${method.toLowerCase()}/responses/${reply.status}/content/${type.replace('/', '~1')}/schema`;
    this.assertValid(pointer, reply.body, `the answer ${reply.status} of ${method} ${template}`);
  }

  private assertValid(pointer: string, value: unknown, what: string): void {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json${pointer}` });
      this.validators.set(pointer, validate);
    }
    assert.ok(
      validate(value),
      `${what} matches the document: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`,
    );
  }
}

/** A JSON pointer's escape of a path template: `/jobs/{id}` → `~1jobs~1{id}`. */
function pointerOf(template: string): string {
  return template.replace(/~/g, '~0').replace(/\//g, '~1');
}

function send(url: URL, method: string, call: ApiCall): Promise<ApiReply> {
  const body = call.raw ?? (call.json === undefined ? undefined : JSON.stringify(call.json));
  const chunked = call.headers?.['transfer-encoding'] === 'chunked';
  const headers: Record<string, string> = {
    ...(body === undefined || chunked
      ? {}
      : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
    ...(call.token === undefined ? {} : { authorization: `Bearer ${call.token}` }),
    ...call.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        localAddress: call.from,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? undefined : JSON.parse(text),
            headers: res.headers,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
