// Lint rules for the playground's arithmetic and its node tools: eslint's recommended set and a few more.
// Patterns are relative to the repository: run from its root with -c (make test does), so the core
// modules under docs/ are linted too.
import js from "@eslint/js";
import globals from "globals";

const CORE = "docs/assets/javascripts/playground/core/*.js";
// The page's modules (the page helper's): the same rules, with the browser's globals.
const UI = "docs/assets/javascripts/playground/ui/*.js";
const TOOLS = ["tools/playground/*.js", "tools/playground/test/*.js"];

export default [
  { ignores: ["tools/playground/node_modules/**"] },
  { files: [CORE, UI, ...TOOLS], ...js.configs.recommended },
  {
    files: [UI],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser, ...globals.worker } },
  },
  {
    files: [CORE],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: {} },
  },
  {
    files: TOOLS,
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
  {
    files: [CORE, UI, ...TOOLS],
    rules: {
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: "error",
      "no-shadow": "error",
      "no-implicit-globals": "error",
      "no-unused-vars": ["error", { args: "all", argsIgnorePattern: "^_" }],
    },
  },
];
