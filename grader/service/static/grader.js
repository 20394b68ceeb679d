// The submission page follows its grading (the API, every second) and, once graded, takes its
// feedback from the server's own escaped page. Tables sort with grader/report/sortable.js.
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
        const place = document.getElementById("queue-place");
        if (place) place.textContent = data.queue ? "(" + data.queue.text + ")" : "";
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
})();
// The instructors' queue (section#queue[data-refresh]) refreshes itself every data-refresh seconds,
// taking the section from the server's own page; not while the page is hidden.
(function () {
  const queue = document.getElementById("queue");
  if (!queue || !queue.dataset.refresh) return;
  const every = Math.max(2, Number(queue.dataset.refresh)) * 1000;
  const note = document.getElementById("queue-refreshing");
  if (note) note.hidden = false;
  const refresh = async () => {
    if (!document.hidden) {
      try {
        const page = await fetch(location.pathname, {credentials: "same-origin"});
        if (page.ok) {
          const fresh = new DOMParser().parseFromString(await page.text(), "text/html");
          const section = fresh.getElementById("queue");
          const current = document.getElementById("queue");
          if (section && current) {
            const said = section.querySelector("#queue-refreshing");
            if (said) said.hidden = false;
            current.replaceWith(section);
          }
        }
      } catch (e) { /* try again */ }
    }
    setTimeout(refresh, every);
  };
  setTimeout(refresh, every);
})();
