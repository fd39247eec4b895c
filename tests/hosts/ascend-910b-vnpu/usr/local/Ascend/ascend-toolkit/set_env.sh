export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest
