/// The stylesheet and script inlined in `report.html`. Static: no run data is ever interpolated here.
enum HTMLAssets {
    static let css = """
    :root { --pass: #1a7f37; --fail: #cf222e; --error: #a40e26; --muted: #59636e; --line: #d1d9e0; --bg: #f6f8fa; }
    * { box-sizing: border-box; }
    body { font: 14px/1.45 -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif;
           color: #1f2328; margin: 0 auto; padding: 16px 24px 48px; max-width: 1360px; }
    h1 { font-size: 22px; margin: 8px 0 12px; }
    h2 { font-size: 17px; margin: 28px 0 8px; }
    code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
    table { border-collapse: collapse; margin: 6px 0 12px; }
    th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
    table { max-width: 100%; }
    td.wrap, td.problem { overflow-wrap: anywhere; }
    .index td.problem { width: 40%; }
    .steps td.wrap { min-width: 10em; }
    thead th { background: var(--bg); }
    .meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 8px; }
    .meta dt { color: var(--muted); }
    .meta dd { margin: 0; overflow-wrap: anywhere; }
    .counts td { text-align: right; min-width: 56px; }
    .failures ul { margin: 4px 0 12px; padding-left: 20px; }
    .failures li { margin: 2px 0; overflow-wrap: anywhere; }
    details.accounts { margin: 4px 0 8px; }
    details.accounts summary { cursor: pointer; color: var(--muted); }
    .badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 7px; border-radius: 10px;
             border: 1px solid currentColor; letter-spacing: .02em; white-space: nowrap; }
    .badge.v-pass { color: var(--pass); }
    .badge.v-fail { color: var(--fail); }
    .badge.v-error { color: var(--error); background: #ffebe9; }
    .badge.v-skipped, .badge.v-blocked, .badge.v-running, .badge.v-no-steps, .badge.v-interrupted { color: var(--muted); }
    .filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; margin: 12px 0; }
    .filters[hidden] { display: none; }
    .filters fieldset { border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px 6px; }
    .filters label { margin-right: 12px; white-space: nowrap; }
    #shown { color: var(--muted); margin: 10px 0 0; }
    .case { border-top: 1px solid var(--line); margin-top: 24px; }
    .case[hidden], .case-row[hidden] { display: none; }
    .case-meta { color: var(--muted); margin: 0 0 6px; }
    figure.timeline { margin: 6px 0 8px; }
    figure.timeline .scroll { display: inline-block; max-width: 100%; overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
    figcaption { color: var(--muted); font-size: 12px; margin-top: 4px; }
    svg.timeline { display: block; font-size: 11px; }
    svg.timeline text { fill: #1f2328; }
    svg.timeline .row-label { fill: var(--muted); font-size: 12px; }
    svg.timeline .axis { stroke: #8c959f; }
    svg.timeline .tick { stroke: #8c959f; }
    svg.timeline .tick-label { fill: var(--muted); font-size: 10.5px; }
    svg.timeline .guide { stroke: var(--line); stroke-dasharray: 3 3; }
    svg.timeline .failing-column { fill: #ffebe9; }
    svg.timeline .band rect { stroke: #fff; stroke-width: 1; }
    svg.timeline .band.empty rect { fill: #f6f8fa; stroke: #d1d9e0; }
    svg.timeline .band.empty text, svg.timeline .band.unobserved text { fill: var(--muted); }
    svg.timeline .band.unjudged rect { fill: none; stroke: #eaeef2; stroke-dasharray: 2 4; }
    svg.timeline .band.unobserved rect { fill: #eaeef2; stroke: #fff; }
    svg.timeline .band.mismatch rect { stroke: var(--fail); stroke-width: 2; }
    svg.timeline .step .marker { stroke: #fff; stroke-width: 1.5; }
    svg.timeline .step.v-pass .marker { fill: var(--pass); }
    svg.timeline .step.v-fail .marker { fill: var(--fail); }
    svg.timeline .step.v-error .marker { fill: var(--error); }
    svg.timeline .step.v-skipped .marker, svg.timeline .step.v-blocked .marker { fill: #fff; stroke: #8c959f; stroke-width: 2; }
    svg.timeline .step.v-skipped .marker { stroke-dasharray: 2 2; }
    svg.timeline .action { font-size: 11.5px; }
    svg.timeline .action.failing { fill: var(--fail); font-weight: 600; }
    .steps tr.v-fail td:first-child, .steps tr.v-error td:first-child { border-left: 4px solid var(--fail); }
    .steps .field { color: var(--muted); }
    .steps td.time { white-space: nowrap; }
    .steps .differs { color: var(--fail); font-weight: 600; }
    .muted { color: var(--muted); }
    footer { margin-top: 32px; color: var(--muted); font-size: 12px; }

    """

    static let script = """
    (function () {
      var panel = document.getElementById('filters');
      if (!panel) { return; }
      panel.hidden = false;
      var boxes = Array.prototype.slice.call(panel.querySelectorAll('input[type=checkbox]'));
      function apply() {
        // Without a prototype, a kind named constructor, toString or __proto__ is a key like any other.
        var on = { verdict: Object.create(null), kind: Object.create(null) };
        boxes.forEach(function (box) { if (box.checked) { on[box.dataset.filter][box.value] = true; } });
        var shown = 0, total = 0;
        document.querySelectorAll('section.case').forEach(function (section) {
          var visible = !!(on.verdict[section.dataset.verdict] && on.kind[section.dataset.kind]);
          section.hidden = !visible;
          total += 1;
          if (visible) { shown += 1; }
        });
        document.querySelectorAll('tr.case-row').forEach(function (row) {
          row.hidden = !(on.verdict[row.dataset.verdict] && on.kind[row.dataset.kind]);
        });
        document.getElementById('shown').textContent = 'Showing ' + shown + ' of ' + total + ' cases';
      }
      boxes.forEach(function (box) { box.addEventListener('change', apply); });
      apply();
    })();

    """
}
