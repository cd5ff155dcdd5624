/**
 * Every route an app serves, with its methods, read from Fastify's own route tree (printRoutes), so that
 * a test can tell which of them the OpenAPI document leaves out.
 */
import type { FastifyInstance } from 'fastify';

export interface Route {
  path: string;
  methods: string[];
}

/**
 * printRoutes({ commonPrefix: false }) draws a tree: each line is a path segment, indented four columns
 * per level under its parent, with the methods of the route that ends there in parentheses.
 */
export function appRoutes(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│├└─\s]*)(\S.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    // Top-level segments are drawn at depth 1.
    stack.length = m[1]!.length / 4 - 1;
    stack.push(m[2]!);
    if (m[3]) routes.push({ path: stack.join(''), methods: m[3].split(', ') });
  }
  return routes;
}
