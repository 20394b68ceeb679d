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
