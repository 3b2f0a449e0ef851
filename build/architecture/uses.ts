// The "takes only what it uses" rule (docs/development.md, "Uses"; issue 37): a class or function that
// declares what it takes (its options, the `…Core` interface of a route, a context) reads every
// property of it, so a dependency nobody uses cannot hide in a narrow interface, and a service's
// interface shows what its users really need. Only the composition roots take more than they use.
// Run: npm run check:uses (npm test and `npm run lint` run it; test/unit/architecture/uses.test.ts
// shows it failing on a small tree).
//
// What is checked: what a receiver depends on (every constructor parameter; a function's `options`,
// `core`, `ctx`, … or a parameter typed `…Options`, `…Core`, `…Context`, …; not data such as an entry
// or a pin it reads a part of) whose declared type is an inline object type, a Pick<>/Omit<>, an
// intersection of those, an interface or type alias declared in the same file as the function (the
// repository's way: "declared where it is used"), or one of CONTEXTS (the CLI's `CliContext`)
// wherever it is taken. Its properties must each be read: for a class, through the
// parameter and through fields it was stored in (`this.#o = options`, `this.#x = options.x`), across
// the class; destructuring and local aliases are followed. A property that is itself such a type
// (an inline object type, a Pick<>, …) is checked one level down, the same way (so a route's
// `approvals: { reviewNow(…) }` must be called). A value passed on whole to another call (or into a
// typed object) counts as using what that call's parameter type declares; to anything untyped or to a
// library's type, all. A class of ours taken whole as a property (`state: AppStateStore`) is looked
// into the same way: its public members must be used, or the property be a Pick<> of those that are.
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { COMPOSITION_ROOTS } from './sizes.ts';
import { sourceFiles } from './source-files.ts';

/** Where the rule looks: the program's main-process sources (the renderer is a React tree of props). */
export const ROOTS = ['electron', 'shared'];

/** The composition roots (the files that only wire: sizes.ts's list) may take more than they use. */
export { COMPOSITION_ROOTS };

/** Named types checked wherever a function takes them (not only in the file that declares them). */
export const CONTEXTS: readonly string[] = ['CliContext'];

export interface Finding {
  /** where the receiving parameter is: repository-relative path and 1-based line */
  file: string;
  line: number;
  /** the class or function that takes it, and the parameter's name */
  receiver: string;
  parameter: string;
  /** the property it never reads, dotted from the parameter (`servers.ownFolder`) */
  property: string;
  /** where the type that has it is written (`file:line`): the parameter, or the property it is part of */
  declaredAt: string;
}

const NESTING = 2;

function compilerOptions(repo: string): ts.CompilerOptions {
  const file = join(repo, 'tsconfig.json');
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (!read.error) return ts.parseJsonConfigFileContent(read.config, ts.sys, repo).options;
  return {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    types: [],
  };
}

type Mark = 'read' | 'full';

/** What one parameter's receiver reads of it: dotted paths, each read or used whole. */
class Uses {
  readonly marks = new Map<string, Mark>();

  mark(path: readonly string[], how: Mark): void {
    const key = path.join('.');
    if (this.marks.get(key) !== 'full') this.marks.set(key, how);
  }

  /** Used whole: the path or one of its parents went somewhere untyped. */
  whole(path: readonly string[]): boolean {
    for (let i = 0; i <= path.length; i++)
      if (this.marks.get(path.slice(0, i).join('.')) === 'full') return true;
    return false;
  }

  /** Read at all: itself, a part of it, or a parent whole. */
  read(path: readonly string[]): boolean {
    if (this.whole(path)) return true;
    const key = path.join('.');
    for (const k of this.marks.keys()) if (k === key || k.startsWith(key + '.')) return true;
    return false;
  }
}

interface FileIndex {
  /** identifiers (and shorthand `{ x }` names) by the symbol they refer to */
  refs: Map<ts.Symbol, ts.Identifier[]>;
}

function indexFile(source: ts.SourceFile, checker: ts.TypeChecker): FileIndex {
  const refs = new Map<ts.Symbol, ts.Identifier[]>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const symbol = ts.isShorthandPropertyAssignment(node.parent)
        ? checker.getShorthandAssignmentValueSymbol(node.parent)
        : checker.getSymbolAtLocation(node);
      if (symbol) {
        const list = refs.get(symbol);
        if (list) list.push(node);
        else refs.set(symbol, [node]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { refs };
}

/** `this.x` / `this.#x`: the field's name. */
function thisField(node: ts.Node): string | undefined {
  if (ts.isPropertyAccessExpression(node) && node.expression.kind === ts.SyntaxKind.ThisKeyword)
    return node.name.text;
  return undefined;
}

/** Follows one parameter's value through a function (or a class, for a constructor). */
class Tracer {
  readonly uses = new Uses();
  readonly #checker: ts.TypeChecker;
  readonly #index: FileIndex;
  readonly #cls: ts.ClassLikeDeclaration | undefined;
  readonly #seen = new Set<string>();

  constructor(checker: ts.TypeChecker, index: FileIndex, cls: ts.ClassLikeDeclaration | undefined) {
    this.#checker = checker;
    this.#index = index;
    this.#cls = cls;
  }

  /** Every use of a variable (a parameter, a destructured name, a local alias) stands for `path`. */
  variable(name: ts.Identifier, path: readonly string[]): void {
    const symbol = this.#checker.getSymbolAtLocation(name);
    if (!symbol) return this.uses.mark(path, 'full');
    const key = `v${name.pos}:${path.join('.')}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    for (const ref of this.#index.refs.get(symbol) ?? []) if (ref !== name) this.#follow(ref, path, 0);
  }

  binding(pattern: ts.BindingName, path: readonly string[]): void {
    if (ts.isIdentifier(pattern)) return this.variable(pattern, path);
    if (ts.isArrayBindingPattern(pattern)) return this.uses.mark(path, 'full');
    for (const element of pattern.elements) {
      if (element.dotDotDotToken) return this.uses.mark(path, 'full');
      const key = element.propertyName ?? element.name;
      const name =
        ts.isIdentifier(key) || ts.isStringLiteral(key) || ts.isPrivateIdentifier(key) ? key.text : undefined;
      if (name === undefined) return this.uses.mark(path, 'full');
      this.uses.mark([...path, name], 'read');
      this.binding(element.name, [...path, name]);
    }
  }

  /** Every `this.<field>` of the class stands for `path`. */
  #field(field: string, path: readonly string[]): void {
    if (!this.#cls) return this.uses.mark(path, 'full');
    const key = `f${field}:${path.join('.')}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const visit = (node: ts.Node): void => {
      if (thisField(node) === field) {
        const parent = node.parent;
        const written =
          ts.isBinaryExpression(parent) &&
          parent.left === node &&
          parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
        if (!written) this.#follow(node, path, 0);
      }
      ts.forEachChild(node, visit);
    };
    visit(this.#cls);
  }

  /** `node` evaluates to the value at `path`: what does its context read of it? */
  #follow(node: ts.Node, path: readonly string[], depth: number): void {
    const parent = node.parent;
    if (depth > 30) return this.uses.mark(path, 'full');
    if (
      ts.isParenthesizedExpression(parent) ||
      ts.isNonNullExpression(parent) ||
      ts.isAsExpression(parent) ||
      ts.isSatisfiesExpression(parent) ||
      ts.isTypeAssertionExpression(parent)
    )
      return this.#follow(parent, path, depth + 1);
    if (ts.isPropertyAccessExpression(parent) && parent.expression === node) {
      const next = [...path, parent.name.text];
      this.uses.mark(next, 'read');
      return this.#follow(parent, next, depth + 1);
    }
    if (ts.isElementAccessExpression(parent) && parent.expression === node) {
      if (!ts.isStringLiteralLike(parent.argumentExpression)) return this.uses.mark(path, 'full');
      const next = [...path, parent.argumentExpression.text];
      this.uses.mark(next, 'read');
      return this.#follow(parent, next, depth + 1);
    }
    // Called: a method or a function, used as what it is.
    if (
      (ts.isCallExpression(parent) || ts.isTaggedTemplateExpression(parent)) &&
      node === (ts.isCallExpression(parent) ? parent.expression : parent.tag)
    )
      return this.uses.mark(path, 'full');
    if (ts.isBinaryExpression(parent)) {
      const op = parent.operatorToken.kind;
      if (op === ts.SyntaxKind.EqualsToken) {
        if (parent.left === node) return; // written, not read
        const field = thisField(parent.left);
        if (field !== undefined) return this.#field(field, path);
        return this.#escape(node as ts.Expression, path);
      }
      if (
        op === ts.SyntaxKind.QuestionQuestionToken ||
        op === ts.SyntaxKind.BarBarToken ||
        (op === ts.SyntaxKind.AmpersandAmpersandToken && parent.right === node)
      ) {
        this.uses.mark(path, 'read');
        return this.#follow(parent, path, depth + 1);
      }
      if (op === ts.SyntaxKind.InKeyword || op === ts.SyntaxKind.InstanceOfKeyword)
        return this.uses.mark(path, 'full');
      return this.uses.mark(path, 'read');
    }
    if (ts.isConditionalExpression(parent)) {
      if (parent.condition === node) return this.uses.mark(path, 'read');
      return this.#follow(parent, path, depth + 1);
    }
    if (ts.isVariableDeclaration(parent) && parent.initializer === node) {
      this.uses.mark(path, 'read');
      return this.binding(parent.name, path);
    }
    if (ts.isPropertyDeclaration(parent) && parent.initializer === node && ts.isIdentifier(parent.name))
      return this.#field(parent.name.text, path);
    if (
      ts.isIfStatement(parent) ||
      ts.isWhileStatement(parent) ||
      ts.isDoStatement(parent) ||
      ts.isPrefixUnaryExpression(parent) ||
      ts.isPostfixUnaryExpression(parent) ||
      ts.isTypeOfExpression(parent) ||
      ts.isVoidExpression(parent) ||
      ts.isExpressionStatement(parent) ||
      ts.isTemplateSpan(parent) ||
      ts.isCaseClause(parent) ||
      ts.isSwitchStatement(parent)
    )
      return this.uses.mark(path, 'read');
    if (ts.isShorthandPropertyAssignment(parent)) {
      const literal = parent.parent;
      const type = this.#checker.getContextualType(literal);
      const property = type?.getProperty(parent.name.text);
      if (!property) return this.uses.mark(path, 'full');
      return this.#byType(path, this.#checker.getTypeOfSymbolAtLocation(property, parent), 0);
    }
    return this.#escape(node as ts.Expression, path);
  }

  /** The value leaves for somewhere else: what that place declares it takes is used; untyped, all of it. */
  #escape(node: ts.Expression, path: readonly string[]): void {
    const type = ts.isExpression(node) ? this.#checker.getContextualType(node) : undefined;
    if (!type) return this.uses.mark(path, 'full');
    this.#byType(path, type, 0);
  }

  #byType(path: readonly string[], type: ts.Type, depth: number): void {
    const t = this.#checker.getNonNullableType(type);
    const opaque =
      t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.TypeParameter | ts.TypeFlags.Union) ||
      !(t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) ||
      t.getCallSignatures().length > 0 ||
      t.getConstructSignatures().length > 0 ||
      this.#checker.getIndexInfosOfType(t).length > 0;
    const all = opaque ? [] : this.#checker.getPropertiesOfType(t);
    // A library's type (a transport's send options, say) may be read further by what implements it.
    const foreign = all.every((p) => p.declarations?.every((d) => d.getSourceFile().isDeclarationFile));
    const properties = foreign ? [] : all;
    if (depth > NESTING || properties.length === 0) return this.uses.mark(path, 'full');
    this.uses.mark(path, 'read');
    for (const property of properties) {
      const next = [...path, property.name];
      this.uses.mark(next, 'read');
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const propertyType = declaration
        ? this.#checker.getTypeOfSymbolAtLocation(property, declaration)
        : this.#checker.getDeclaredTypeOfSymbol(property);
      this.#byType(next, propertyType, depth + 1);
    }
  }
}

/** The type as written, without `?`/`| undefined`/parentheses. */
function bareType(node: ts.TypeNode): ts.TypeNode | undefined {
  if (ts.isParenthesizedTypeNode(node)) return bareType(node.type);
  if (ts.isUnionTypeNode(node)) {
    const kept = node.types.filter(
      (t) =>
        !(
          t.kind === ts.SyntaxKind.UndefinedKeyword ||
          (ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword)
        ),
    );
    return kept.length === 1 && kept[0] ? bareType(kept[0]) : undefined;
  }
  return node;
}

/** A type written on the spot to say what is taken: inline, Pick<>/Omit<>, or made of those. */
function narrowShape(node: ts.TypeNode | undefined): boolean {
  const t = node && bareType(node);
  if (!t) return false;
  if (ts.isTypeLiteralNode(t)) return true;
  if (ts.isIntersectionTypeNode(t))
    return t.types.every((part) => narrowShape(part) || ts.isTypeReferenceNode(part));
  if (ts.isIndexedAccessTypeNode(t)) return true;
  return (
    ts.isTypeReferenceNode(t) &&
    ts.isIdentifier(t.typeName) &&
    (t.typeName.text === 'Pick' || t.typeName.text === 'Omit')
  );
}

/**
 * What a receiver depends on, rather than data it is handed: a constructor's parameters, and a
 * function's options, core, context or dependencies (by the parameter's or its type's name). A record
 * passed in to be read in part (an entry, a pin, a lock) is data and may carry more than is read.
 */
const DEPENDENCY_NAME = /^(options|opts|core|deps|ctx|context|hooks|services)$/;
const DEPENDENCY_TYPE = /(Options|Core|Deps|Context|Hooks|Services)$/;

function typeName(node: ts.TypeNode): string | undefined {
  return ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) ? node.typeName.text : undefined;
}

/** The parameter's declared type, if the rule checks it. */
function checkedType(
  param: ts.ParameterDeclaration,
  checker: ts.TypeChecker,
  source: ts.SourceFile,
  contexts: readonly string[],
): ts.Type | undefined {
  if (!param.type || param.dotDotDotToken) return undefined;
  const t = bareType(param.type);
  if (!t) return undefined;
  const name = ts.isIdentifier(param.name) ? param.name.text : undefined;
  const dependency =
    ts.isConstructorDeclaration(param.parent) ||
    (name !== undefined && DEPENDENCY_NAME.test(name)) ||
    DEPENDENCY_TYPE.test(typeName(t) ?? '') ||
    contexts.includes(typeName(t) ?? '');
  if (!dependency) return undefined;
  let taken = narrowShape(t);
  if (!taken && ts.isTypeReferenceNode(t) && ts.isIdentifier(t.typeName)) {
    let symbol = checker.getSymbolAtLocation(t.typeName);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declarations = symbol?.declarations ?? [];
    taken =
      contexts.includes(t.typeName.text) ||
      (declarations.length > 0 &&
        declarations.every(
          (d) =>
            (ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d)) && d.getSourceFile() === source,
        ));
  }
  if (!taken) return undefined;
  const type = checker.getNonNullableType(checker.getTypeFromTypeNode(t));
  if (type.getCallSignatures().length > 0 || checker.getIndexInfosOfType(type).length > 0) return undefined;
  if (type.flags & ts.TypeFlags.Union) return undefined;
  return type;
}

/**
 * A named type checked one level down too: a class of ours taken whole (`state: AppStateStore`, where
 * `Pick<AppStateStore, 'decision'>` would say what is used), or an interface or type alias declared
 * beside the receiver (it says what that receiver takes, as if written on the spot).
 */
function ownNamedType(node: ts.TypeNode | undefined, checker: ts.TypeChecker, top: ts.SourceFile): boolean {
  const t = node && bareType(node);
  if (!t || !ts.isTypeReferenceNode(t) || !ts.isIdentifier(t.typeName)) return false;
  let symbol = checker.getSymbolAtLocation(t.typeName);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declarations = symbol?.declarations ?? [];
  return (
    declarations.length > 0 &&
    declarations.every((d) => {
      const file = d.getSourceFile();
      if (ts.isClassDeclaration(d))
        return !file.isDeclarationFile && !file.fileName.includes('/node_modules/');
      return (ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d)) && file === top;
    })
  );
}

/** Which properties of a declared property's type are checked too (a shape written on the spot). */
function nestedShape(property: ts.Symbol, checker: ts.TypeChecker, top: ts.SourceFile): ts.Type | undefined {
  // A Pick<>'s or Omit<>'s property has no value declaration of its own: the picked one's is it.
  const declarations = property.declarations ?? [];
  const declaration = property.valueDeclaration ?? (declarations.length === 1 ? declarations[0] : undefined);
  if (!declaration || !(ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)))
    return undefined;
  if (!narrowShape(declaration.type) && !ownNamedType(declaration.type, checker, top)) return undefined;
  const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, declaration));
  if (type.getCallSignatures().length > 0 || checker.getIndexInfosOfType(type).length > 0) return undefined;
  if (type.flags & ts.TypeFlags.Union) return undefined;
  return type;
}

function unread(
  type: ts.Type,
  path: readonly string[],
  uses: Uses,
  checker: ts.TypeChecker,
  depth: number,
  top: ts.SourceFile,
  where: ts.Node,
): { property: string; where: ts.Node }[] {
  const found: { property: string; where: ts.Node }[] = [];
  for (const property of checker.getPropertiesOfType(type)) {
    if (!isPublic(property)) continue;
    const next = [...path, property.name];
    if (!uses.read(next)) {
      found.push({ property: next.join('.'), where });
      continue;
    }
    if (depth >= NESTING || uses.whole(next)) continue;
    const nested = nestedShape(property, checker, top);
    const at = property.valueDeclaration ?? property.declarations?.[0];
    if (nested && at) found.push(...unread(nested, next, uses, checker, depth + 1, top, at));
  }
  return found;
}

/** A member others can reach (a class's `#private` and `private` ones are its own). */
function isPublic(property: ts.Symbol): boolean {
  if (property.name.startsWith('#')) return false;
  const declaration = property.valueDeclaration ?? property.declarations?.[0];
  if (!declaration || !ts.canHaveModifiers(declaration)) return true;
  const modifiers = ts.getModifiers(declaration) ?? [];
  return !modifiers.some(
    (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
  );
}

function receiverName(fn: ts.SignatureDeclaration): string {
  if (ts.isConstructorDeclaration(fn)) return `${fn.parent.name?.text ?? 'class'} constructor`;
  if (fn.name && (ts.isIdentifier(fn.name) || ts.isPrivateIdentifier(fn.name))) {
    const owner = ts.isClassLike(fn.parent) ? `${fn.parent.name?.text ?? 'class'}.` : '';
    return `${owner}${fn.name.text}`;
  }
  const holder = fn.parent;
  if (ts.isVariableDeclaration(holder) && ts.isIdentifier(holder.name)) return holder.name.text;
  if (ts.isPropertyAssignment(holder) && ts.isIdentifier(holder.name)) return holder.name.text;
  return 'function';
}

/** Every parameter of the repository's sources that takes more than its receiver reads. */
export function checkUses(
  repo: string,
  rules: { roots: readonly string[]; compositionRoots: readonly string[]; contexts: readonly string[] } = {
    roots: ROOTS,
    compositionRoots: COMPOSITION_ROOTS,
    contexts: CONTEXTS,
  },
): Finding[] {
  const files = rules.roots.flatMap((dir) => sourceFiles(repo, dir, /\.tsx?$/)).map((f) => join(repo, f));
  const program = ts.createProgram(files, compilerOptions(repo));
  const checker = program.getTypeChecker();
  const findings: Finding[] = [];
  for (const file of files) {
    const path = relative(repo, file).split(sep).join('/');
    if (rules.compositionRoots.includes(path)) continue;
    const source = program.getSourceFile(file);
    if (!source) continue;
    const index = indexFile(source, checker);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const fn = node as ts.SignatureDeclaration;
        const cls = ts.isConstructorDeclaration(node) ? node.parent : undefined;
        for (const param of fn.parameters) {
          const type = checkedType(param, checker, source, rules.contexts);
          if (!type) continue;
          const tracer = new Tracer(checker, index, cls);
          tracer.binding(param.name, []);
          for (const { property, where } of unread(type, [], tracer.uses, checker, 0, source, param)) {
            const declared = where.getSourceFile();
            findings.push({
              file: path,
              line: source.getLineAndCharacterOfPosition(param.getStart(source)).line + 1,
              receiver: receiverName(fn),
              parameter: ts.isIdentifier(param.name) ? param.name.text : '{…}',
              property,
              declaredAt: `${relative(repo, declared.fileName).split(sep).join('/')}:${
                declared.getLineAndCharacterOfPosition(where.getStart(declared)).line + 1
              }`,
            });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return findings;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const repo = fileURLToPath(new URL('../..', import.meta.url));
  const findings = checkUses(repo);
  for (const f of findings)
    console.error(
      `  error uses: ${f.file}:${f.line} ${f.receiver} takes ${f.parameter}.${f.property} but never reads it` +
        (f.declaredAt === `${f.file}:${f.line}` ? '' : ` (its type is written at ${f.declaredAt})`),
    );
  if (findings.length) {
    console.error(
      `\n${findings.length} propert(ies) taken and never read: narrow the type to what is used, and stop passing the rest` +
        ` (build/architecture/uses.ts; docs/development.md, "Uses")`,
    );
    process.exit(1);
  }
  console.log('✔ no class or function takes more than it uses (but the composition roots)');
}
