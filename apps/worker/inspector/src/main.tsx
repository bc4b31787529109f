/**
 * @module main
 * The inspector's entry point: renders the app into the page's `#app`.
 */

import { render } from "preact";
import { App } from "./app.tsx";

const root = document.getElementById("app");
if (root !== null) {
  root.textContent = "";
  render(<App />, root);
}
