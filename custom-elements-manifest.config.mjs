/**
 * The custom-elements manifest of <referral-widget> (`npm run manifest` writes custom-elements.json).
 * Only the widget: the dashboard's elements are the service's own pages, not an API for other pages.
 * Attributes, events, parts, custom properties and slots come from the JSDoc on the ReferralWidget class.
 */

/**
 * Two things the analyzer's Lit support gets wrong about this element, put right:
 * - entries of `static properties` with `state: true` are internal reactive state, which Lit gives no
 *   attribute; the analyzer makes an attribute of each. Their attributes go, and so do the members
 *   themselves unless the class documents them with @prop;
 * - `#emit(type, detail)` dispatches `new CustomEvent(type, ...)`, which the analyzer lists as an event
 *   named `type`; events named by a variable are dropped (the real ones are documented with @event);
 * - it lists a local variable of a method (`email`) among the module's declarations; declarations a
 *   module does not export go.
 */
function litInternals() {
  /** Per class name: its internal state properties, its @prop names, the variables events are named by. */
  const classes = new Map();
  return {
    name: 'refkit-lit-internals',
    analyzePhase({ ts, node }) {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      const info = { state: new Set(), documented: new Set(), eventVariables: new Set() };
      for (const tag of ts.getJSDocTags(node)) {
        const name = tag.tagName.text;
        if (name === 'prop' || name === 'property') info.documented.add(/\}\s*(\S+)/.exec(tag.getText())?.[1] ?? String(tag.comment ?? '').split(/\s/)[0]);
      }
      for (const member of node.members) {
        const isStatic = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
        if (!isStatic || !ts.isPropertyDeclaration(member) || member.name.getText() !== 'properties') continue;
        if (!member.initializer || !ts.isObjectLiteralExpression(member.initializer)) continue;
        for (const property of member.initializer.properties) {
          if (!ts.isPropertyAssignment(property) || !ts.isObjectLiteralExpression(property.initializer)) continue;
          const isState = property.initializer.properties.some(
            (o) => ts.isPropertyAssignment(o) && o.name.getText() === 'state' && o.initializer.kind === ts.SyntaxKind.TrueKeyword,
          );
          if (isState) info.state.add(property.name.getText());
        }
      }
      const visit = (n) => {
        if (ts.isNewExpression(n) && n.expression.getText() === 'CustomEvent' && n.arguments?.[0] && ts.isIdentifier(n.arguments[0])) {
          info.eventVariables.add(n.arguments[0].text);
        }
        ts.forEachChild(n, visit);
      };
      visit(node);
      classes.set(node.name.text, info);
    },
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules) {
        mod.declarations = mod.declarations?.filter((d) => mod.exports?.some((e) => e.declaration?.name === d.name));
        for (const declaration of mod.declarations ?? []) {
          const info = classes.get(declaration.name);
          if (!info || declaration.kind !== 'class') continue;
          declaration.attributes = declaration.attributes?.filter((a) => !info.state.has(a.fieldName));
          declaration.members = declaration.members
            ?.filter((m) => !info.state.has(m.name) || info.documented.has(m.name))
            .map((m) => {
              if (!info.state.has(m.name)) return m;
              const { attribute: _attribute, ...rest } = m;
              return rest;
            });
          declaration.events = declaration.events?.filter((e) => !(info.eventVariables.has(e.name) && !e.description));
        }
      }
    },
  };
}

export default {
  globs: ['src/widget/referral-widget.ts', 'src/widget/index.ts'],
  outdir: '.',
  litelement: true,
  // package.json names the manifest itself; a check writing elsewhere must not rewrite it.
  packagejson: false,
  plugins: [litInternals()],
};
