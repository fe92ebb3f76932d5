/**
 * Answers checked against the OpenAPI document (dereferenced): which operation and response an
 * answer is, and what in it the document does not say — a status it lists nowhere, a header it
 * does not name or whose value its schema refuses, a body type or a body its schema refuses. Which
 * responses answered is kept, so a test can see every documented one came.
 */
import type Ajv2020 from 'ajv/dist/2020.js';

/** An answer as a test received it, whatever carried it. */
export interface SeenAnswer {
  method: string;
  /** Path and query. */
  target: string;
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The body, decoded from its content coding. */
  body: string;
  /** In process (every status listed explicitly) or over a socket (the server's own refusals may answer). */
  via: 'core' | 'socket';
}

/** Headers of HTTP itself, which the document does not describe: framing, coding, the connection, the date. */
const HTTP_OWN = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'content-type',
]);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const mediaType = (type: string | undefined) => (type ?? '').split(';')[0]!.trim().toLowerCase();

export class DocumentCheck {
  /** `path template method status-key` of every response that answered. */
  readonly answered = new Set<string>();
  private readonly templates: { template: string; pattern: RegExp; concrete: boolean }[];
  private readonly compiled = new Map<object, ReturnType<Ajv2020['compile']>>();

  constructor(
    readonly doc: any,
    private readonly ajv: Ajv2020,
  ) {
    this.templates = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}/g, '[^/]+')}$`),
      concrete: !template.includes('{'),
    }));
  }

  /** The document's path that names a request's path: a concrete one before a template. */
  templateOf(pathname: string): string | undefined {
    const matches = this.templates.filter((t) => t.pattern.test(pathname));
    return (matches.find((t) => t.concrete) ?? matches[0])?.template;
  }

  /** The methods a path takes: those the document gives a success, and HEAD with GET. */
  allowedOn(template: string): string[] {
    const item = this.doc.paths[template];
    const methods = METHODS.filter((m) => item[m] && Object.keys(item[m].responses).some((s) => s.startsWith('2')));
    if (methods.includes('get')) methods.splice(methods.indexOf('get') + 1, 0, 'head');
    return methods.map((m) => m.toUpperCase());
  }

  /** Every `template method status-key` the document lists. */
  documented(): string[] {
    return Object.entries(this.doc.paths).flatMap(([template, item]: [string, any]) =>
      METHODS.filter((m) => item[m]).flatMap((m) =>
        Object.keys(item[m].responses).map((status) => `${template} ${m.toUpperCase()} ${status}`),
      ),
    );
  }

  private valid(schema: object, value: unknown): string | undefined {
    let check = this.compiled.get(schema);
    if (!check) this.compiled.set(schema, (check = this.ajv.compile(schema)));
    return check(value) ? undefined : this.ajv.errorsText(check.errors);
  }

  /** What in the answer the document does not say (empty: it says all of it). */
  problems(answer: SeenAnswer): string[] {
    const out: string[] = [];
    const say = (what: string) =>
      out.push(`${answer.via} ${answer.method} ${answer.target} → ${answer.status}: ${what}`);
    const pathname = new URL(answer.target, 'http://x').pathname;
    const template = this.templateOf(pathname);
    if (!template) {
      say('no path of the document names it');
      return out;
    }
    const item = this.doc.paths[template];
    const isHead = answer.method === 'HEAD';
    const op = item[isHead ? 'get' : answer.method.toLowerCase()];
    if (!op) {
      // The server's own refusals answer any method; they are the `Refused` response.
      if (answer.status !== 405 && answer.via === 'socket')
        return this.checked(answer, this.doc.components.responses.Refused, say, out);
      // A method the document does not list: 405, naming those it does, in the path's own error shape.
      if (answer.status !== 405) say('a method the document does not list, answered other than 405');
      const allow = (answer.headers.allow ?? '').split(',').map((m) => m.trim());
      if (allow.join(', ') !== this.allowedOn(template).join(', '))
        say(`Allow "${answer.headers.allow}", where the document lists ${this.allowedOn(template).join(', ')}`);
      const own = METHODS.map((m) => item[m]?.responses?.['405']).find(Boolean);
      const schema = own?.content?.['application/json']?.schema ?? this.doc.components.schemas.Error;
      if (answer.body !== '') {
        const wrong = this.valid(schema, JSON.parse(answer.body) as unknown);
        if (wrong) say(`405 body: ${wrong}`);
      } else if (!isHead) say('405 with no body');
      this.answered.add(`${template} ${answer.method} 405`);
      return out;
    }
    const key = String(answer.status) in op.responses ? String(answer.status) : 'default';
    const response = op.responses[key];
    if (!response) {
      say('a status the operation does not list, and no default');
      return out;
    }
    if (key === 'default' && answer.via === 'core') say('in process, an answer no status of the operation lists');
    this.answered.add(`${template} ${answer.method} ${key}`);
    return this.checked(answer, response, say, out);
  }

  /** The answer's headers and body against one response of the document. */
  private checked(answer: SeenAnswer, response: any, say: (what: string) => void, out: string[]): string[] {
    const isHead = answer.method === 'HEAD';

    // Headers: every required one present, every one sent named and of its schema.
    const documented = new Map<string, any>(
      Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]),
    );
    for (const [name, header] of documented)
      if (header.required && !(name in answer.headers)) say(`no ${name}, which the document requires`);
    for (const [name, value] of Object.entries(answer.headers)) {
      if (HTTP_OWN.has(name)) continue;
      const header = documented.get(name);
      if (!header) {
        say(`header ${name} (${value.slice(0, 60)}) not in the document`);
        continue;
      }
      const wrong = this.valid(header.schema, value);
      if (wrong) say(`header ${name} "${value.slice(0, 80)}": ${wrong}`);
    }

    // The body: the media type the document gives, and a value of its schema.
    const content = response.content as Record<string, any> | undefined;
    const type = mediaType(answer.headers['content-type']);
    if (!content) {
      if (answer.body !== '') say('a body where the document gives none');
      if (type) say(`content-type ${type} where the document gives no body`);
      return out;
    }
    const media = content[type];
    if (!media) {
      say(`content-type "${type}", where the document gives ${Object.keys(content).join(', ')}`);
      return out;
    }
    if (isHead) {
      if (answer.body !== '') say('HEAD with a body');
      return out;
    }
    let value: unknown = answer.body;
    try {
      if (type.endsWith('json')) value = JSON.parse(answer.body);
    } catch {
      say(`a body that is not ${type}`);
      return out;
    }
    const wrong = this.valid(media.schema, value);
    if (wrong) say(`body: ${wrong}`);
    return out;
  }
}
