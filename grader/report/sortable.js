// Sorts a table.sortable by a click on a column head (th[data-column]); a cell's data-value, when
// present, sorts as a number. The address #sort=N or #sort=N-desc sorts the table #students first.
// One file for the batch's summary.html (inlined) and the service's pages (served as is).
function sortBy(table, column, descending) {
  const body = table.tBodies[0];
  const key = row => {
    const cell = row.cells[column];
    const value = cell.dataset.value;
    return value === undefined ? cell.textContent : parseFloat(value);
  };
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    const order = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
    return descending ? -order : order;
  });
  rows.forEach(row => body.appendChild(row));
  table.dataset.sorted = column + (descending ? "-desc" : "-asc");
}
document.querySelectorAll("table.sortable").forEach(table => {
  table.querySelectorAll("th[data-column]").forEach(th => th.addEventListener("click", () => {
    const column = Number(th.dataset.column);
    sortBy(table, column, table.dataset.sorted === column + "-asc");
  }));
});
(function () {
  const wanted = /^#sort=(\d+)(-desc)?$/.exec(location.hash);
  const table = document.getElementById("students");
  if (wanted && table) sortBy(table, Number(wanted[1]), !!wanted[2]);
})();
