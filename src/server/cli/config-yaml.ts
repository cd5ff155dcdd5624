/**
 * Campaigns as code on disk: a folder with campaigns/<id>.yaml and webhooks/<url>.yaml. Writes what
 * exportConfig gives, one file each with a comment saying what it is; reads a folder back, checking each
 * file against its schema (the API's) and telling a problem by file, line and column.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Document, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { TSchema } from '@sinclair/typebox';
import { CampaignConfig, WebhookConfig } from '../operations/domain/config-files.js';
import type { ConfigItem, ConfigSet } from '../operations/domain/config-plan.js';
import { locatedChecker } from '../kernel/validation.js';

export const CAMPAIGNS = 'campaigns';
export const WEBHOOKS = 'webhooks';

const CAMPAIGN_HEADER = (id: string) => `\
 Campaign ${id}: its settings, reward rules, widget look and lifecycle emails, written by \`refkit export\`.
 Change it and run \`refkit apply --dir <the folder above campaigns/>\` (with --dry-run to see the changes first).
 Not here, and kept as they are on apply: the campaign's secrets (its email-signing secret, its Stripe
 webhook secret and Stripe reward key; set those with \`refkit campaign update\`), its status (\`refkit
 campaign status\`), and its data: participants and reward code pools.
 A field left out is left as it is. emails.texts lists the texts written for this campaign; every other
 email has its default text, and a text taken out of the list goes back to it.`;

const WEBHOOK_HEADER = `\
 A webhook endpoint: the URL events are sent to and which events, written by \`refkit export\`.
 An endpoint is known by its URL (another URL is another endpoint). Its signing secret is not here and is
 kept as it is on apply; the secret of an endpoint apply creates is printed once, as \`refkit webhook add\` does.`;

const YAML_OPTIONS = { lineWidth: 0, blockQuote: 'literal' } as const;

function yamlFile(value: object, header: string): string {
  const doc = new Document(value);
  doc.commentBefore = header;
  return doc.toString(YAML_OPTIONS);
}

/** A file name for an endpoint: its URL's host and path in letters, digits and dashes. */
const slug = (url: string) => {
  const u = new URL(url);
  return `${u.host}${u.pathname}${u.search}`.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'endpoint';
};

const isConfigFile = (name: string) => name.endsWith('.yaml') || name.endsWith('.yml');

async function configFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isConfigFile).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * Writes the configuration into `dir`: a file per campaign and per endpoint. The folder's campaigns/ and
 * webhooks/ are the export's: a YAML file there that names nothing exported any more (an endpoint since
 * removed) is deleted, so that applying the folder does not bring it back.
 */
export async function writeConfigDir(dir: string, config: { campaigns: CampaignConfig[]; webhooks: WebhookConfig[] }): Promise<{ written: string[]; removed: string[] }> {
  const files = new Map<string, string>();
  for (const c of config.campaigns) files.set(join(CAMPAIGNS, `${c.id}.yaml`), yamlFile(c, CAMPAIGN_HEADER(c.id)));
  for (const w of config.webhooks) {
    let name = slug(w.url);
    for (let n = 2; files.has(join(WEBHOOKS, `${name}.yaml`)); n++) name = `${slug(w.url)}-${n}`;
    files.set(join(WEBHOOKS, `${name}.yaml`), yamlFile(w, WEBHOOK_HEADER));
  }
  const removed: string[] = [];
  for (const sub of [CAMPAIGNS, WEBHOOKS]) {
    await mkdir(join(dir, sub), { recursive: true });
    for (const name of await configFiles(join(dir, sub))) {
      if (files.has(join(sub, name))) continue;
      await rm(join(dir, sub, name));
      removed.push(join(dir, sub, name));
    }
  }
  for (const [path, text] of files) await writeFile(join(dir, path), text);
  return { written: [...files.keys()].map((p) => join(dir, p)), removed };
}

/** A problem with a file: where, and what. */
export interface FileProblem {
  source: string;
  line: number;
  column: number;
  message: string;
}
export const describeProblem = (p: FileProblem) => `${p.source}:${p.line}:${p.column}: ${p.message}`;

/** A file read: its YAML, to find a field's line in. */
interface Parsed {
  doc: Document.Parsed;
  lines: LineCounter;
}

/** The key or item at `path` in a document, as far as it goes: where a problem with that field is shown. */
function nodeAt(doc: Document.Parsed, path: string[]): Node | undefined {
  let node: unknown = doc.contents;
  let at: Node | undefined = doc.contents ?? undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
      if (!pair) break;
      at = (pair.key as Node | null) ?? at;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (!item) break;
      at = item as Node;
      node = item;
    } else break;
  }
  return at;
}

/** A folder's config files read and checked: the set, the problems (none for a set to apply), and where a field of a file is. */
export interface ReadConfig {
  set: ConfigSet;
  problems: FileProblem[];
  /** A problem at the field `path` of the file `source` (the first line when the path is not in it). */
  problemAt(source: string, path: string[], message: string): FileProblem;
}

export async function readConfigDir(dir: string): Promise<ReadConfig> {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) throw new Error(`${dir} is not a folder`);
  const parsed = new Map<string, Parsed>();
  const problems: FileProblem[] = [];
  const problemAt = (source: string, path: string[], message: string): FileProblem => {
    const p = parsed.get(source);
    const node = p && nodeAt(p.doc, path);
    const { line, col } = node?.range && p ? p.lines.linePos(node.range[0]) : { line: 1, col: 1 };
    return { source, line, column: col, message };
  };
  async function read<T>(sub: string, schema: TSchema): Promise<ConfigItem<T>[]> {
    const check = locatedChecker(schema, 'file');
    const items: ConfigItem<T>[] = [];
    for (const name of await configFiles(join(dir, sub))) {
      const source = join(dir, sub, name);
      const lines = new LineCounter();
      const doc = parseDocument(await readFile(source, 'utf8'), { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
      const [error] = doc.errors;
      if (error) {
        const pos = lines.linePos(error.pos[0]);
        problems.push({ source, line: pos.line, column: pos.col, message: `not YAML: ${error.message.split('\n')[0]}` });
        continue;
      }
      parsed.set(source, { doc, lines });
      let value: unknown;
      try {
        value = doc.toJS({ maxAliasCount: 100 });
      } catch (err) {
        // Aliases that would expand too far (a "billion laughs").
        problems.push({ source, line: 1, column: 1, message: `not YAML: ${(err as Error).message}` });
        continue;
      }
      const problem = check(value);
      if (problem) problems.push(problemAt(source, problem.path, problem.message));
      else items.push({ source, value: value as T });
    }
    return items;
  }
  const campaigns = await read<CampaignConfig>(CAMPAIGNS, CampaignConfig);
  const webhooks = await read<WebhookConfig>(WEBHOOKS, WebhookConfig);
  return { set: { campaigns, webhooks }, problems, problemAt };
}
