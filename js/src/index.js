// anywidget entry point: the widget's render (as the default export's, the form anywidget asks
// for: a named `render` export draws a deprecation warning in every host), and the in-page model
// of exported HTML files.

import { render } from "./render.js";

export { renderStandalone } from "./standalone.js";
export default { render };
