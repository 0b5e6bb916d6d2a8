// Lint rules for the playground's arithmetic and its node tools: eslint's recommended set and a few more.
// Patterns are relative to the repository: run from its root with -c (make test does), so the core
// modules under docs/ are linted too.
import js from "@eslint/js";
import globals from "globals";

const CORE = "docs/assets/javascripts/playground/core/*.js";
// The page's modules (the page helper's): the same rules, with the browser's globals.
const UI = "docs/assets/javascripts/playground/ui/*.js";
const TOOLS = ["tools/playground/*.js", "tools/playground/test/*.js"];
// The loader of mkdocs-material's bundle (hooks/theme/theme_on_demand.py inlines it in every page): a classic script.
const THEME_LOADER = "hooks/theme/theme_loader.js";

export default [
  { ignores: ["tools/playground/node_modules/**"] },
  { files: [CORE, UI, ...TOOLS, THEME_LOADER], ...js.configs.recommended },
  {
    files: [UI],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser, ...globals.worker } },
  },
  {
    files: [THEME_LOADER],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: { ...globals.browser } },
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
    files: [CORE, UI, ...TOOLS, THEME_LOADER],
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
