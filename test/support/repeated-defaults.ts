/**
 * Finds where a module states a setting's default again, or a default of its own as a bare literal,
 * and where `app.ts` passes a setting under another name. Reads TypeScript's syntax tree, so that
 * comments, strings and unrelated `??` are not mistaken for defaults.
 *
 * What it reports, in a module (anything but `src/config/index.ts`):
 * - `fallback`: `x ?? <literal>` or `x || <literal>` where `x` is a setting's name (`options.maxCost
 *   ?? 100_000`), or `options.x ?? <number>` for any option (`options.brotliQuality ?? 4`). A
 *   setting's default lives in `src/config/index.ts`; a module's own number is a named constant, stated
 *   once. (`options.endpoint ?? '/healthz'` and `?? false` pass: no setting is a path or an off switch
 *   by that name, and a constant would only spell them again.)
 * - `destructuring`: `{ maxCost = 100_000 }` (a setting's name), or a number as the default of a
 *   property destructured from `options` or from a parameter.
 * - `parameter`: `function f(maxCost = 100_000)`.
 * - `optional`: a property named after a setting declared optional (`maxCost?: number`): modules
 *   take their settings as required options, which `app.ts` passes from the config.
 * And in `app.ts`:
 * - `rename`: `perSocket: config.wsMaxSubscriptionsPerSocket`: a module option named other than
 *   the setting it takes.
 */
import ts from 'typescript';

export type Rule = 'fallback' | 'destructuring' | 'parameter' | 'optional' | 'rename';

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly rule: Rule;
  readonly message: string;
}

export interface ScanOptions {
  /** The settings' names (the keys of `GatewayConfig`). */
  readonly settings: ReadonlySet<string>;
  /** Look for renamed settings (`app.ts`): option assignments `name: config.other`. */
  readonly renames?: boolean | undefined;
}

/** The identifiers a module's options object goes by. */
const OPTIONS_OBJECTS = new Set(['options', 'opts']);

export function findRepeatedDefaults(file: string, text: string, options: ScanOptions): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const findings: Finding[] = [];
  const report = (node: ts.Node, rule: Rule, message: string): void => {
    findings.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, rule, message });
  };
  const isSetting = (name: string | undefined): name is string => name !== undefined && options.settings.has(name);

  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && isFallbackOperator(node.operatorToken.kind) && isBareLiteral(node.right)) {
      const name = nameOf(node.left);
      if (isSetting(name)) report(node, 'fallback', `\`${node.getText(source)}\` repeats the default of the setting ${name} (src/config/index.ts)`);
      else if (isOptionRead(node.left) && isNumber(node.right)) report(node, 'fallback', `\`${node.getText(source)}\`: an option's default number belongs in a named constant (or, for a setting, in src/config/index.ts)`);
    } else if (ts.isBindingElement(node) && node.initializer !== undefined && isBareLiteral(node.initializer) && ts.isObjectBindingPattern(node.parent)) {
      const name = bindingName(node);
      if (isSetting(name)) report(node, 'destructuring', `\`${node.getText(source)}\` repeats the default of the setting ${name} (src/config/index.ts)`);
      else if (destructuresOptions(node.parent) && isNumber(node.initializer)) report(node, 'destructuring', `\`${node.getText(source)}\`: an option's default number belongs in a named constant (or, for a setting, in src/config/index.ts)`);
    } else if (ts.isParameter(node) && node.initializer !== undefined && isBareLiteral(node.initializer) && ts.isIdentifier(node.name) && isSetting(node.name.text)) {
      report(node, 'parameter', `\`${node.getText(source)}\` repeats the default of the setting ${node.name.text} (src/config/index.ts)`);
    } else if (ts.isPropertySignature(node) && node.questionToken !== undefined && isSetting(propertyNameOf(node.name))) {
      report(node, 'optional', `\`${node.getText(source)}\`: the setting ${propertyNameOf(node.name)} is a required option (app.ts passes it from the config)`);
    } else if (options.renames && ts.isPropertyAssignment(node)) {
      const taken = configSettingRead(node.initializer);
      const given = propertyNameOf(node.name);
      if (taken !== undefined && isSetting(taken) && given !== taken) report(node, 'rename', `\`${node.getText(source)}\` passes the setting ${taken} as \`${given}\`: name the option ${taken}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

function isFallbackOperator(kind: ts.SyntaxKind): boolean {
  return kind === ts.SyntaxKind.QuestionQuestionToken || kind === ts.SyntaxKind.BarBarToken;
}

/** A value written out: a number, a string, a boolean, `-1`, `[]`, `{}`. */
function isBareLiteral(node: ts.Expression): boolean {
  const inner = skipParentheses(node);
  if (ts.isNumericLiteral(inner) || ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner) || ts.isBigIntLiteral(inner)) return true;
  if (inner.kind === ts.SyntaxKind.TrueKeyword || inner.kind === ts.SyntaxKind.FalseKeyword) return true;
  if (ts.isPrefixUnaryExpression(inner) && inner.operator === ts.SyntaxKind.MinusToken) return isBareLiteral(inner.operand);
  if (ts.isArrayLiteralExpression(inner)) return inner.elements.length === 0;
  if (ts.isObjectLiteralExpression(inner)) return inner.properties.length === 0;
  return false;
}

function isNumber(node: ts.Expression): boolean {
  const inner = skipParentheses(node);
  if (ts.isPrefixUnaryExpression(inner) && inner.operator === ts.SyntaxKind.MinusToken) return isNumber(inner.operand);
  return ts.isNumericLiteral(inner) || ts.isBigIntLiteral(inner);
}

function skipParentheses(node: ts.Expression): ts.Expression {
  let inner = node;
  while (ts.isParenthesizedExpression(inner) || ts.isAsExpression(inner) || ts.isNonNullExpression(inner)) inner = inner.expression;
  return inner;
}

/** `maxCost`, `options.maxCost`, `options['maxCost']`, `options?.maxCost`: the name read. */
function nameOf(node: ts.Expression): string | undefined {
  const inner = skipParentheses(node);
  if (ts.isIdentifier(inner)) return inner.text;
  if (ts.isPropertyAccessExpression(inner)) return inner.name.text;
  if (ts.isElementAccessExpression(inner) && ts.isStringLiteralLike(inner.argumentExpression)) return inner.argumentExpression.text;
  return undefined;
}

/** `options.x` (or `opts.x`): an option read from the module's options object. */
function isOptionRead(node: ts.Expression): boolean {
  const inner = skipParentheses(node);
  return (ts.isPropertyAccessExpression(inner) || ts.isElementAccessExpression(inner)) && ts.isIdentifier(inner.expression) && OPTIONS_OBJECTS.has(inner.expression.text);
}

function bindingName(element: ts.BindingElement): string | undefined {
  if (element.propertyName !== undefined) return propertyNameOf(element.propertyName);
  return ts.isIdentifier(element.name) ? element.name.text : undefined;
}

/** `const { a = 1 } = options`, or `function f({ a = 1 }: Options)`. */
function destructuresOptions(pattern: ts.ObjectBindingPattern): boolean {
  const { parent } = pattern;
  if (ts.isParameter(parent)) return true;
  return ts.isVariableDeclaration(parent) && parent.initializer !== undefined && ts.isIdentifier(parent.initializer) && OPTIONS_OBJECTS.has(parent.initializer.text);
}

function propertyNameOf(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isPrivateIdentifier(name)) return name.text;
  return undefined;
}

/** `config.x`: the setting read straight from the config, whatever else the expression adds with `??`. */
function configSettingRead(node: ts.Expression): string | undefined {
  let inner = skipParentheses(node);
  if (ts.isBinaryExpression(inner) && inner.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) inner = skipParentheses(inner.left);
  if (ts.isPropertyAccessExpression(inner) && ts.isIdentifier(inner.expression) && inner.expression.text === 'config') return inner.name.text;
  return undefined;
}

