// anywidget entry point: the widget's render, and the in-page model of exported HTML files.

import { render } from "./render.js";

export { render };
export { renderStandalone } from "./standalone.js";
export default { render };
