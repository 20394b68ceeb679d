// The submission page follows its grading (the API, every second) and, once graded, takes its
// feedback from the server's own escaped page; the class table sorts by a click on a column.
(function () {
  const box = document.getElementById("feedback");
  if (box && box.dataset.status !== "graded" && box.dataset.status !== "error") {
    const id = box.dataset.submission;
    const poll = async () => {
      try {
        const reply = await fetch("/api/submissions/" + encodeURIComponent(id), {credentials: "same-origin"});
        const data = await reply.json();
        document.getElementById("status").textContent = data.status;
        document.getElementById("progress").textContent = data.progress || "";
        if (data.status === "graded" || data.status === "error") {
          const page = await fetch(location.pathname, {credentials: "same-origin"});
          const fresh = new DOMParser().parseFromString(await page.text(), "text/html");
          const done = fresh.getElementById("feedback");
          if (done) box.replaceWith(done);
          return;
        }
      } catch (e) { /* try again */ }
      setTimeout(poll, 1000);
    };
    setTimeout(poll, 500);
  }
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
})();
