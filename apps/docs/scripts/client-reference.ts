/**
 * @module scripts/client-reference
 * The client's reference page: `Condense`, `CondenseOptions`, `SessionHandle`, `withCompaction`,
 * `condenseMiddleware` and their options, read with the TypeScript checker from the client's
 * public `index.ts` (so an option inherited from another interface is listed too), each member
 * with its JSDoc and its `@default` tag.
 */

import { join } from "node:path";
import ts from "typescript";
import { code, table } from "./markdown.ts";
import { repoRoot } from "./worker-source.ts";

export const CLIENT_INDEX = "packages/client/src/index.ts";

interface Reader {
  checker: ts.TypeChecker;
  exports: Map<string, ts.Symbol>;
}

function reader(): Reader {
  const index = join(repoRoot, CLIENT_INDEX);
  const program = ts.createProgram([index], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(index);
  const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) throw new Error(`cannot read ${CLIENT_INDEX}`);
  const exports = new Map(
    checker.getExportsOfModule(moduleSymbol).map((symbol) => {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return [symbol.name, target] as const;
    }),
  );
  return { checker, exports };
}

function docOf(checker: ts.TypeChecker, symbol: ts.Symbol): string {
  return ts
    .displayPartsToString(symbol.getDocumentationComment(checker))
    .replace(/\s+/g, " ")
    .trim();
}

function defaultOf(symbol: ts.Symbol): string {
  const tag = symbol.getJsDocTags().find((t) => t.name === "default");
  return tag === undefined ? "" : ts.displayPartsToString(tag.text).replace(/\s+/g, " ").trim();
}

function symbolOf(r: Reader, name: string): ts.Symbol {
  const symbol = r.exports.get(name);
  if (symbol === undefined) throw new Error(`${CLIENT_INDEX} exports no ${name}`);
  return symbol;
}

/** The fields of an options type (an interface or an alias of one), with type, doc and default. */
export function optionsTable(r: Reader, name: string): string {
  const symbol = symbolOf(r, name);
  const type = r.checker.getDeclaredTypeOfSymbol(symbol);
  const rows = r.checker.getPropertiesOfType(type).map((property) => {
    const declaration = property.valueDeclaration ?? property.declarations?.[0];
    const typeText =
      declaration !== undefined && ts.isPropertySignature(declaration) && declaration.type
        ? declaration.type.getText()
        : r.checker.typeToString(r.checker.getTypeOfSymbol(property));
    const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
    const fallback = defaultOf(property);
    return [
      code(property.name),
      code(typeText.replace(/\s+/g, " ")),
      optional ? "" : "yes",
      fallback === "" ? "" : code(fallback),
      docOf(r.checker, property),
    ];
  });
  return table(["option", "type", "required", "default", "meaning"], rows);
}

function signatureText(r: Reader, name: string, signature: ts.Signature): string {
  const text = r.checker.signatureToString(
    signature,
    undefined,
    ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature,
  );
  return `${name}${text.replace(/ => /, ": ")}`;
}

/** A method as it is written (parameters with their declared types, defaults as `?`). */
function methodText(name: string, method: ts.MethodDeclaration): string {
  const typeParameters =
    method.typeParameters === undefined
      ? ""
      : `<${method.typeParameters.map((t) => t.getText()).join(", ")}>`;
  const parameters = method.parameters.map((p) => {
    const optional = p.questionToken !== undefined || p.initializer !== undefined;
    return `${p.name.getText()}${optional ? "?" : ""}: ${p.type?.getText() ?? "unknown"}`;
  });
  const returns = method.type?.getText() ?? "void";
  return `${name}${typeParameters}(${parameters.join(", ")}): ${returns}`;
}

/** The public methods and properties of a class, in declaration order. */
export function classMembers(r: Reader, name: string): string {
  const symbol = symbolOf(r, name);
  const instance = r.checker.getDeclaredTypeOfSymbol(symbol);
  const rows: string[][] = [];
  for (const member of r.checker.getPropertiesOfType(instance)) {
    if (member.name.startsWith("#")) continue;
    const declaration = member.valueDeclaration ?? member.declarations?.[0];
    if (declaration === undefined) continue;
    const modifiers = ts.getCombinedModifierFlags(declaration);
    if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
    const shown = ts.isMethodDeclaration(declaration)
      ? methodText(member.name, declaration)
      : `${member.name}: ${r.checker.typeToString(r.checker.getTypeOfSymbolAtLocation(member, declaration))}`;
    rows.push([code(shown.replace(/\s+/g, " ")), docOf(r.checker, member)]);
  }
  return table(["member", "what it does"], rows);
}

/** A function's doc comment and signatures. */
export function functionSection(r: Reader, name: string): string {
  const symbol = symbolOf(r, name);
  const type = r.checker.getTypeOfSymbol(symbol);
  const signatures = type
    .getCallSignatures()
    .map((signature) => signatureText(r, `function ${name}`, signature));
  const doc = ts.displayPartsToString(symbol.getDocumentationComment(r.checker)).trim();
  return `\`\`\`ts\n${signatures.join("\n")}\n\`\`\`\n\n${doc}\n`;
}

/** The class's own doc comment. */
export function classDoc(r: Reader, name: string): string {
  return ts.displayPartsToString(symbolOf(r, name).getDocumentationComment(r.checker)).trim();
}

export function clientReferenceParts(): Record<string, string> {
  const r = reader();
  return {
    condense: classMembers(r, "Condense"),
    condenseOptions: optionsTable(r, "CondenseOptions"),
    sessionHandle: classMembers(r, "SessionHandle"),
    withCompaction: functionSection(r, "withCompaction"),
    withCompactionOptions: optionsTable(r, "WithCompactionOptions"),
    condenseMiddleware: functionSection(r, "condenseMiddleware"),
    condenseMiddlewareOptions: optionsTable(r, "CondenseMiddlewareOptions"),
  };
}
