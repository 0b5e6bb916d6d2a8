/* The animated race figures (built by the package scripts/figures/race): drawing, readout and controls.
 *
 * The figures animate with SMIL; this script
 * - draws each figure when it is needed: the page ships the drawing in a <template>, which
 *   costs nothing while the page loads, and it is moved into the figure's <svg> when the
 *   figure comes near the view, when its content tab is selected, when one of its buttons
 *   gets the focus, or before the page is printed;
 * - writes the readout: each text marked data-race-frames lists its string for every frame
 *   ("|" between them), and the one the animation clock is at is shown (a page carries one
 *   text per value instead of a film strip of every frame, which would slow the whole page);
 * - shows each figure's Pause/Play and Restart buttons (hidden without JavaScript,
 *   and left hidden when the reader prefers reduced motion: the figure is still then);
 * - holds a figure at its start until it first scrolls into view, so the reader sees it run;
 * - restarts the races in a content tab (pymdownx.tabbed) when that tab is selected.
 * Works with mkdocs-material's instant navigation: setup runs on every page via document$.
 * A figure is marked data-race-ready once set up, data-race-drawn once drawn, and
 * data-race-waiting while it is held at its start.
 */
(function () {
  "use strict";

  var SELECTOR = ".race";
  var NEAR = "50% 0px"; /* draw a figure when it is within half a screen of the view */
  var reducedMotion = window.matchMedia
    ? window.matchMedia("(prefers-reduced-motion: reduce)")
    : null;
  var observes = "IntersectionObserver" in window;
  var sight = null; /* starts a waiting figure once it is in view */
  var nearby = null; /* draws a figure that comes near the view */
  var following = []; /* races whose readout follows their clock, frame by frame */
  var ticking = false;
  var readouts = typeof WeakMap === "function" ? new WeakMap() : null;

  function svgOf(race) {
    var svg = race.querySelector("svg");
    return svg && typeof svg.setCurrentTime === "function" ? svg : null;
  }

  function duration(race) {
    return parseFloat(race.getAttribute("data-race-duration")) || 0;
  }

  function button(race, action) {
    return race.querySelector('[data-race-action="' + action + '"]');
  }

  function isOver(race, svg) {
    var end = duration(race);
    return end > 0 && svg.getCurrentTime() >= end;
  }

  /* ------------------------------------------------------------ drawing */

  /* Chromium may leave a race's animations unsampled when its clock is set going: after its drawing is
   * moved in, and after it was drawn in a tab not shown (its clock ran while the lines stood still until
   * the next animation's begin, 5 s in). Two frames on, once they are scheduled, seek the clock to where
   * it is: the seek samples every animation, and changes nothing else, paused or running. */
  function resample(svg) {
    window.requestAnimationFrame(function () {
      window.requestAnimationFrame(function () {
        svg.setCurrentTime(svg.getCurrentTime());
      });
    });
  }

  /* Move the drawing from the figure's <template> into its <svg>, once. */
  function draw(race) {
    if (race.hasAttribute("data-race-drawn")) {
      return;
    }
    var template = race.querySelector("template.race__drawing");
    var svg = race.querySelector("svg");
    if (template && svg) {
      var drawing = template.content.querySelector("svg");
      while (drawing && drawing.firstChild) {
        svg.appendChild(drawing.firstChild);
      }
      template.remove();
      resample(svg);
    }
    race.setAttribute("data-race-drawn", "");
    if (nearby) {
      nearby.unobserve(race);
    }
    var clock = race.querySelector("[data-race-clock]");
    if (clock) {
      clock.addEventListener("endEvent", function () {
        showRunning(race, false);
      });
    }
    follow(race);
  }

  function drawAll() {
    document.querySelectorAll(SELECTOR).forEach(draw);
  }

  /* ------------------------------------------------------------ the readout */

  /* Each readout text and its frames' strings, read once per drawn figure. */
  function slotsOf(race) {
    var slots = readouts && readouts.get(race);
    if (!slots) {
      slots = Array.prototype.map.call(race.querySelectorAll("[data-race-frames]"), function (text) {
        return { text: text, frames: text.getAttribute("data-race-frames").split("|"), shown: -1 };
      });
      if (readouts && slots.length) {
        readouts.set(race, slots);
      }
    }
    return slots;
  }

  /* Show the frame the clock is at: frame k covers [k, k + 1) / frames of the animation. */
  function drawReadout(race, svg) {
    var end = duration(race);
    var time = svg.getCurrentTime();
    slotsOf(race).forEach(function (slot) {
      var count = slot.frames.length;
      var k = end > 0 ? Math.max(0, Math.min(count - 1, Math.floor((time * count) / end))) : count - 1;
      if (k !== slot.shown) {
        slot.text.textContent = slot.frames[k];
        slot.shown = k;
      }
    });
  }

  function tick() {
    following = following.filter(function (race) {
      var svg = svgOf(race);
      if (!svg || !race.isConnected) {
        return false;
      }
      drawReadout(race, svg);
      return !svg.animationsPaused() && !isOver(race, svg);
    });
    ticking = following.length > 0;
    if (ticking) {
      window.requestAnimationFrame(tick);
    }
  }

  /* Keep the readout in step until the race is paused or over (no work when motion is reduced: it is hidden). */
  function follow(race) {
    var svg = svgOf(race);
    if (!svg || (reducedMotion !== null && reducedMotion.matches)) {
      return;
    }
    drawReadout(race, svg);
    if (following.indexOf(race) < 0) {
      following.push(race);
    }
    if (!ticking) {
      ticking = true;
      window.requestAnimationFrame(tick);
    }
  }

  /* ------------------------------------------------------------ playing */

  /* The toggle reads "Pause" while the race runs, "Play" when it is paused, waiting or over. */
  function showRunning(race, running) {
    var toggle = button(race, "pause");
    if (toggle) {
      toggle.textContent = running ? "Pause" : "Play";
    }
  }

  function restart(race) {
    var svg = svgOf(race);
    if (!svg) {
      return;
    }
    draw(race);
    svg.setCurrentTime(0);
    svg.unpauseAnimations();
    resample(svg);
    race.removeAttribute("data-race-waiting");
    showRunning(race, true);
    follow(race);
  }

  function hold(race) {
    var svg = svgOf(race);
    if (!svg) {
      return;
    }
    svg.pauseAnimations();
    svg.setCurrentTime(0);
    race.setAttribute("data-race-waiting", "");
    showRunning(race, false);
    follow(race); /* shows the first frame, once drawn */
  }

  function toggle(race) {
    var svg = svgOf(race);
    if (!svg) {
      return;
    }
    draw(race);
    if (isOver(race, svg) || race.hasAttribute("data-race-waiting")) {
      restart(race);
    } else if (svg.animationsPaused()) {
      svg.unpauseAnimations();
      resample(svg);
      showRunning(race, true);
      follow(race);
    } else {
      svg.pauseAnimations();
      showRunning(race, false);
    }
  }

  /* ------------------------------------------------------------ setting up a page */

  function showButtons(race) {
    var hide = !svgOf(race) || (reducedMotion !== null && reducedMotion.matches);
    race.querySelectorAll("[data-race-action]").forEach(function (control) {
      control.hidden = hide;
    });
  }

  /* Buttons first, so the Tab order is whole from the start; the figure waits for its first sight.
   * The observers' first reports cover figures already in view: asking the page where a figure
   * is would force a layout while the page is loading. */
  function setUp(race) {
    if (race.hasAttribute("data-race-ready")) {
      return;
    }
    race.setAttribute("data-race-ready", "");
    showButtons(race);
    if (!svgOf(race)) {
      return;
    }
    if (observes) {
      hold(race);
      nearby.observe(race);
      sight.observe(race);
    } else {
      draw(race);
    }
  }

  function onNear(entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) {
        draw(entry.target);
      }
    });
  }

  function onSight(entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) {
        sight.unobserve(entry.target);
        if (entry.target.hasAttribute("data-race-waiting")) {
          restart(entry.target);
        }
      }
    });
  }

  function setUpPage() {
    [sight, nearby].forEach(function (previous) {
      if (previous) {
        previous.disconnect(); /* figures of the previous page are gone */
      }
    });
    following = [];
    sight = observes ? new IntersectionObserver(onSight, { threshold: 0.4 }) : null;
    nearby = observes ? new IntersectionObserver(onNear, { rootMargin: NEAR }) : null;
    document.querySelectorAll(SELECTOR).forEach(setUp);
  }

  /* The content block a tab's radio input selects: alternate style
   * (.tabbed-content > .tabbed-block, by position) or the legacy style (input, label, content). */
  function tabPanel(input) {
    var set = input.parentElement;
    var inputs = Array.prototype.filter.call(set.children, function (child) {
      return child.matches('input[type="radio"]');
    });
    var blocks = set.querySelectorAll(":scope > .tabbed-content > .tabbed-block");
    if (blocks.length) {
      return blocks[inputs.indexOf(input)] || null;
    }
    var label = input.nextElementSibling;
    return label ? label.nextElementSibling : null;
  }

  function raceOfControl(target) {
    var control = target.closest && target.closest("[data-race-action]");
    var race = control && control.closest(SELECTOR);
    return race ? { control: control, race: race } : null;
  }

  document.addEventListener("click", function (event) {
    var found = raceOfControl(event.target);
    if (!found) {
      return;
    }
    if (found.control.getAttribute("data-race-action") === "restart") {
      restart(found.race);
    } else {
      toggle(found.race);
    }
  });

  document.addEventListener("focusin", function (event) {
    var found = raceOfControl(event.target);
    if (found) {
      draw(found.race);
    }
  });

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches('.tabbed-set > input[type="radio"]') || !input.checked) {
      return;
    }
    var panel = tabPanel(input);
    if (panel) {
      panel.querySelectorAll(SELECTOR).forEach(restart);
    }
  });

  window.addEventListener("beforeprint", drawAll);

  if (reducedMotion && reducedMotion.addEventListener) {
    reducedMotion.addEventListener("change", function () {
      document.querySelectorAll(SELECTOR).forEach(function (race) {
        showButtons(race);
        follow(race);
      });
    });
  }

  /* Each page: the first one once it is parsed, and each page instant navigation brings in. */
  function onEveryPage(run) {
    if (typeof document$ !== "undefined" && document$.subscribe) {
      document$.subscribe(run);
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", run);
    } else {
      run();
    }
  }

  onEveryPage(setUpPage);
})();
