"""The student's side: `python -I -m autograder.witness` runs the notebook as the
unprivileged `student` and answers the grader's questions with data. Student code runs in
this process, so nothing here is trusted by the grader."""
